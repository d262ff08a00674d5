/** The reservation service's records as the sandbox stores them (upstreams/reservation-service.md). */

/** `customer` of a reservation record. */
export interface ReservationCustomer {
  id: string;
  first_name: string;
  last_name: string;
  nickname: string | null;
  is_anonym: boolean;
  primary_phone_number: string;
  /** Only `normal` appears in the document; the sandbox uses nothing else. */
  type_name: string;
}

/** The reservation service's customer book keeps the e-mail too; records carry only ReservationCustomer. */
export interface ReservationCustomerProfile extends ReservationCustomer {
  email: string;
}

/** `check` of a reservation record; the document says only "object or null", the sandbox gives these three. */
export interface ReservationCheckRef {
  id: string;
  alias: string;
  status: string;
}

/** `reservation_payment` of a reservation record; shape not shown, this is the sandbox's choice. */
export interface ReservationPaymentRef {
  id: string;
  amount: number;
  currency: string;
  status: string;
}

export interface ReservationRecord {
  id: string;
  type: string;
  status: string;
  date: string;
  estimated_discharged_at: string;
  discharged_at: string | null;
  created_at: string;
  created_by: string;
  assigned_at: string | null;
  guest_count: number;
  occupied_seat_count: number;
  male_cover: number;
  female_cover: number;
  child_cover: number;
  note: string;
  hotel_room_number: string;
  revenue_center_id: string;
  child_revenue_center_id: string | null;
  store_id: string;
  table_id: string;
  table_ids: string[];
  table_names: string;
  customer: ReservationCustomer;
  check: ReservationCheckRef | null;
  reservation_payment: ReservationPaymentRef | null;
  public_url: string;
  is_draft: boolean;
}

/** A payment request as stored: the documented update body plus the reservation it belongs to and its state. */
export interface PaymentRequestRecord {
  id: string;
  reservation_id: string;
  amount: number;
  currency: string;
  phone_number: string;
  email: string;
  send_email: boolean;
  send_sms: boolean;
  sms_content: string;
  note: string;
  /** Unit not shown in the document; the sandbox's sample values read as hours. */
  expiration_time: number;
  language: string;
  /** expired, cancelled, active or inactive (implied by the operation names). */
  status: string;
}

export interface OffDayTranslation {
  locale: string;
  text: string;
}

/** The documented off-day body as accepted, plus the id and store the sandbox gives it. */
export interface OffDayRecord {
  id: string;
  store_id: string;
  revenue_center_id: string;
  child_revenue_center_ids?: string[];
  type?: number;
  date: string;
  end_date?: string;
  active_for_reservations?: boolean;
  active_for_online?: boolean;
  active_for_requests?: boolean;
  is_note_visible?: boolean;
  partial?: boolean;
  start_time?: string;
  end_time?: string;
  days?: number[];
  translations?: OffDayTranslation[];
}
