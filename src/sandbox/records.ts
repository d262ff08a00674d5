/**
 * The records the sandbox stores and serialises as they are, so every field
 * name is the upstream documents' snake_case name. Nullable fields the
 * documents type as plain values are marked where they are.
 */

// ---- reservation service (upstreams/reservation-service.md)

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

// ---- point-of-sale service (upstreams/pos-service.md)

export interface Metafield {
  id: string;
  key: string;
  value: string;
  value_type: string;
  updated_at: number;
}

export interface Employee {
  id: string;
  first_name: string;
  last_name: string;
  phone_number: string;
  registration_no: string;
  property_id: string;
  metafields: Metafield[];
}

export interface NamedRef {
  id: string;
  name: string;
}

export interface CustomerAccountDetail {
  checks_count: number;
  checks_paid_amount: number;
  total_current_account: number;
  paid_current_account: number;
  remaining_current_account: number;
}

export interface Customer {
  id: string;
  first_name: string;
  last_name: string;
  phone_number: string;
  email: string;
  gender: string;
  enterprise_id: string;
  customer_discount_id: string;
  created_at: number;
  updated_at: number;
  account_detail: CustomerAccountDetail;
  tags: NamedRef[];
  external_id: string;
  metafields: Metafield[];
}

export interface Delivery {
  address: string;
  address_id: string;
  recipient: string;
  payment_names: string[];
}

export interface Tax {
  id: string;
  rate: number;
  name: string;
}

export interface CheckServiceCharge {
  id: string;
  service_charge_id: string;
  business_date: string;
  amount: string;
  tax_amount: string;
  net_amount: string;
  tax: Tax;
}

export interface CheckSummary {
  original_items_amount: string;
  original_taxes_amount: string;
  complimentaries_amount: string;
  discounts_amount: string;
  taxes_amount: string;
  service_charge_amount: string;
  paid_amount: string;
  unpaid_amount: string;
  paid_service_charge_amount: string;
  total_amount: string;
  base_amount: string;
  offer_amount: string;
}

export interface CheckDiscount {
  id: string;
  business_date: string;
  source: string;
  value: string;
  discount_amount: string;
  discount_id: string;
  name: string;
  type: string;
  annotation: string;
}

export interface CheckPayment {
  id: string;
  business_date: string;
  payment_type_id: string;
  paid_amount: string;
  device: NamedRef;
  extras: Record<string, unknown>;
}

export interface CheckItemSummary {
  discount_amount: string;
  tax_amount: string;
  total_amount: string;
  original_amount: string;
  original_tax_amount: string;
}

export interface CheckItem {
  id: string;
  /** Types not shown; null on top-level items. */
  parent_check_item_id: string | null;
  /** Types not shown; the reason of a complimentary item, otherwise null. */
  reason_id: string | null;
  business_date: string;
  status: string;
  payment_status: string;
  complimentary: boolean;
  unit_type: string;
  quantity: string;
  notes: string[];
  is_combo: boolean;
  summary: CheckItemSummary;
  tax: Tax;
  item: { id: string; name: string; type: string; source_id: string };
}

export interface CheckOffer {
  id: string;
  offer_id: string;
  name: string;
  value: string;
}

/**
 * A POS check. The document types the nested objects and closed_at as plain
 * values; the sandbox answers null where a real check has nothing to say
 * (closed_at while open, table on delivery, customer on walk-ins, delivery
 * on dine-in, check_service_charge when none was charged).
 */
export interface Check {
  id: string;
  alias: string;
  created_at: number;
  updated_at: number;
  closed_at: number | null;
  business_date: string;
  female_cover: number;
  male_cover: number;
  child_cover: number;
  note: string;
  sequence: number;
  sequential_id: number;
  status: string;
  delivery_status: string;
  property_id: string;
  revenue_center: NamedRef;
  shift_id: string;
  employee: Employee;
  table: NamedRef | null;
  sales_channel: NamedRef;
  customer: Customer | null;
  delivery: Delivery | null;
  extras: Record<string, unknown>;
  check_service_charge: CheckServiceCharge | null;
  summary: CheckSummary;
  check_discounts: CheckDiscount[];
  check_payments: CheckPayment[];
  check_items: CheckItem[];
  check_offers: CheckOffer[];
}

// ---- the venue and the whole state

/** Revenue centers share ids between the two services in the sandbox (the documents do not say how they relate). */
export interface RevenueCenter {
  id: string;
  name: string;
}

export interface VenueTable {
  id: string;
  name: string;
  revenue_center_id: string;
  capacity: number;
}

export type TenantKey = 'laTerrazza' | 'bistroNord';

/** One venue: a store to the reservation service, a property to the POS. */
export interface TenantState {
  key: TenantKey;
  name: string;
  slug: string;
  store_id: string;
  property_id: string;
  enterprise_id: string;
  /** The payment-link extension of the store; when off, payment request updates answer 832. */
  payment_link_enabled: boolean;
  revenue_centers: RevenueCenter[];
  tables: VenueTable[];
  employees: Employee[];
  /** POS customers. */
  customers: Map<string, Customer>;
  /** The reservation service's customer book (same people and ids as the POS in the sample). */
  reservation_customers: Map<string, ReservationCustomerProfile>;
  checks: Map<string, Check>;
  reservations: Map<string, ReservationRecord>;
  payment_requests: Map<string, PaymentRequestRecord>;
  off_days: OffDayRecord[];
}

export interface SandboxState {
  /** The instant (ISO 8601, UTC) the sample data was built around. */
  now: string;
  tenants: Record<TenantKey, TenantState>;
}
