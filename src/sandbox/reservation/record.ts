import type {
  ReservationCheckRef, ReservationCustomer, ReservationCustomerProfile, ReservationPaymentRef, ReservationRecord, VenueTable,
} from '../records';
import { localToInstant, localToIso, toVenueIso, type LocalDateTime } from '../venueTime';

/** `created_by` of reservations made through the API (the document shows only "name of the creator"). */
export const API_CREATOR = 'Tablegraph API';

/** Assumption: without estimated_discharged_at a reservation is expected to last two hours. */
export const DEFAULT_STAY_MINUTES = 120;

/** Everything a reservation record is made of, already checked. */
export interface ReservationDraft {
  id: string;
  revenueCenterId: string;
  /** At least one; the first is `table_id`. */
  tables: VenueTable[];
  customer: ReservationCustomer;
  guestCount: number;
  occupiedSeatCount: number;
  maleCover: number;
  femaleCover: number;
  childCover: number;
  date: LocalDateTime;
  estimatedDischargedAt?: LocalDateTime;
  stayMinutes?: number;
  note: string;
  hotelRoomNumber: string;
  isDraft: boolean;
  status: string;
  createdAt: Date;
  createdBy: string;
  check: ReservationCheckRef | null;
  reservationPayment: ReservationPaymentRef | null;
}

export function buildReservationRecord(venue: { store_id: string; slug: string }, draft: ReservationDraft): ReservationRecord {
  const first = draft.tables[0];
  if (!first) throw new Error('buildReservationRecord: expected at least one table');
  const start = localToInstant(draft.date);
  const estimated = draft.estimatedDischargedAt
    ? localToIso(draft.estimatedDischargedAt)
    : toVenueIso(new Date(start.getTime() + (draft.stayMinutes ?? DEFAULT_STAY_MINUTES) * 60_000));
  const createdAt = toVenueIso(draft.createdAt);
  return {
    id: draft.id,
    type: 'reservation',
    status: draft.status,
    date: localToIso(draft.date),
    estimated_discharged_at: estimated,
    discharged_at: null,
    created_at: createdAt,
    created_by: draft.createdBy,
    // Tables are assigned when the reservation is made.
    assigned_at: createdAt,
    guest_count: draft.guestCount,
    occupied_seat_count: draft.occupiedSeatCount,
    male_cover: draft.maleCover,
    female_cover: draft.femaleCover,
    child_cover: draft.childCover,
    note: draft.note,
    hotel_room_number: draft.hotelRoomNumber,
    revenue_center_id: draft.revenueCenterId,
    child_revenue_center_id: null,
    store_id: venue.store_id,
    table_id: first.id,
    table_ids: draft.tables.map((t) => t.id),
    table_names: draft.tables.map((t) => t.name).join(', '),
    customer: draft.customer,
    check: draft.check,
    reservation_payment: draft.reservationPayment,
    public_url: `https://book.example.test/voucher/${draft.id}?slug=${venue.slug}&lang=en`,
    is_draft: draft.isDraft,
  };
}

/** The customer object of a record: the book's entry without the e-mail. */
export function toReservationCustomer(profile: ReservationCustomerProfile): ReservationCustomer {
  const { email: _email, ...customer } = profile;
  return customer;
}
