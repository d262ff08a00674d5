import type { SandboxReply } from '../http';
import type { ReservationCustomerProfile } from '../records';
import { findTypeError, given, isUuid, type BodySpec } from '../validate';
import type { Checked, EndpointContext } from './context';
import { RESERVATION_ERRORS as E } from './errors';
import {
  endAfterStart, knownCustomer, localDateTimeOf, optionalLocalDateTimeOf, positiveIntegerOf, revenueCenterOf, notInThePast, withinCapacity, stringOr, tablesOf,
} from './inputs';
import { API_CREATOR, buildReservationRecord, toReservationCustomer } from './record';
import { coversOf } from './reservations';

/** "Reservation body of POST /api/v1/calendars" in the document. */
const CALENDAR_BODY: BodySpec = {
  revenue_center_id: 'string', table_id: 'string', reservation_request_id: 'string', customer_id: 'string',
  date: 'string', estimated_discharged_at: 'string', note: 'string', guest_count: 'integer', arrival_state: 'integer',
  occupied_seat_count: 'integer', source_detail: 'string', is_dining: 'boolean', status: 'integer',
  female_cover: 'integer', male_cover: 'integer', child_cover: 'integer', has_provision_confirmation: 'boolean',
  hotel_room_number: 'string', make_a_reservation: 'boolean', transfer_status: 'boolean',
  allergen_or_intolerance: 'boolean', requires_payment_request: 'boolean', tag_ids: 'string[]',
};

/** Assumption: a calendar entry without guest_count is a table for two. */
const DEFAULT_GUEST_COUNT = 2;

/**
 * POST /api/v1/calendars → 201 {"reservation": {…}}. The document does not
 * show the response; this body and status are the sandbox's choice. The
 * integer `status` of the body has no documented mapping to the record's
 * string status, so new entries are "init" like any new reservation.
 */
export function createCalendarReservation(ctx: EndpointContext): SandboxReply {
  const { body, tenant } = ctx;
  const typeError = findTypeError(body, CALENDAR_BODY);
  if (typeError) return E.invalidParameter(typeError);
  if (given(body.reservation_request_id) && !isUuid(body.reservation_request_id)) return E.invalidParameter('reservation_request_id must be a UUID');
  const rc = revenueCenterOf(tenant, body.revenue_center_id);
  if (!rc.ok) return rc.reply;
  if (!given(body.table_id)) return E.invalidParameter('table_id is required');
  const tables = tablesOf(tenant, rc.value, [body.table_id as string]);
  if (!tables.ok) return tables.reply;
  const date = localDateTimeOf('date', body.date);
  if (!date.ok) return date.reply;
  const end = optionalLocalDateTimeOf('estimated_discharged_at', body.estimated_discharged_at);
  if (!end.ok) return end.reply;
  const ordered = endAfterStart(date.value, end.value);
  if (!ordered.ok) return ordered.reply;
  const guests = positiveIntegerOf('guest_count', body.guest_count, DEFAULT_GUEST_COUNT);
  if (!guests.ok) return guests.reply;
  const upcoming = notInThePast('date', date.value, ctx.clock());
  if (!upcoming.ok) return upcoming.reply;
  const fits = withinCapacity(tenant, rc.value, guests.value);
  if (!fits.ok) return fits.reply;
  const covers = coversOf(body);
  if (!covers.ok) return covers.reply;
  const customer = given(body.customer_id) ? knownCustomer(tenant, body.customer_id) : anonymousCustomer(ctx);
  if (!customer.ok) return customer.reply;

  const record = buildReservationRecord(tenant, {
    id: ctx.newId(), revenueCenterId: rc.value.id, tables: tables.value, customer: toReservationCustomer(customer.value),
    guestCount: guests.value, occupiedSeatCount: typeof body.occupied_seat_count === 'number' ? body.occupied_seat_count : 0,
    ...covers.value, date: date.value, ...(end.value ? { estimatedDischargedAt: end.value } : {}),
    note: stringOr(body.note, ''), hotelRoomNumber: stringOr(body.hotel_room_number, ''), isDraft: false,
    status: 'init', createdAt: ctx.clock(), createdBy: API_CREATOR, check: null, reservationPayment: null,
  });
  tenant.reservation_customers.set(customer.value.id, customer.value);
  tenant.reservations.set(record.id, record);
  return { status: 201, body: { reservation: record } };
}

/** Assumption: a calendar entry without customer_id is for an anonymous guest (the service has an "anonymous customers" group). */
function anonymousCustomer(ctx: EndpointContext): Checked<ReservationCustomerProfile> {
  return {
    ok: true,
    value: {
      id: ctx.newId(), first_name: 'Anonymous', last_name: 'Guest', nickname: null, is_anonym: true,
      primary_phone_number: '', type_name: 'normal', email: '',
    },
  };
}
