import type { SandboxReply } from '../http';
import { isPageRequest, pageRequestOf, paginate } from '../pagination';
import type { ReservationCustomerProfile } from '../records';
import { findTypeError, given, isUuid, type BodySpec } from '../validate';
import { isLocalDate } from '../venueTime';
import type { Checked, EndpointContext } from './context';
import { RESERVATION_ERRORS as E } from './errors';
import {
  assignTable, coverOf, endAfterStart, inlineCustomer, knownCustomer, localDateTimeOf, notInThePast, optionalLocalDateTimeOf, positiveIntegerOf,
  revenueCenterOf,
  stringOr, tablesOf, withinCapacity,
} from './inputs';
import { API_CREATOR, buildReservationRecord, toReservationCustomer } from './record';

/** "Reservation body of POST /v1/reservations" in the document. */
const CREATE_BODY: BodySpec = {
  revenue_center_id: 'string', customer_id: 'string', customer: 'object', table_id: 'string', table_ids: 'string[]',
  guest_count: 'integer', date: 'string', estimated_discharged_at: 'string', note: 'string',
  male_cover: 'integer', female_cover: 'integer', child_cover: 'integer', make_a_reservation: 'boolean', is_draft: 'boolean',
};

/** POST /v1/reservations → 201 {"reservation": {…}} (the document does not show the status; 201 is our choice). */
export function createReservation(ctx: EndpointContext): SandboxReply {
  const { body, tenant } = ctx;
  const typeError = findTypeError(body, CREATE_BODY);
  if (typeError) return E.invalidParameter(typeError);
  const rc = revenueCenterOf(tenant, body.revenue_center_id);
  if (!rc.ok) return rc.reply;
  const date = localDateTimeOf('date', body.date);
  if (!date.ok) return date.reply;
  const end = optionalLocalDateTimeOf('estimated_discharged_at', body.estimated_discharged_at);
  if (!end.ok) return end.reply;
  const ordered = endAfterStart(date.value, end.value);
  if (!ordered.ok) return ordered.reply;
  const guests = positiveIntegerOf('guest_count', body.guest_count);
  if (!guests.ok) return guests.reply;
  const upcoming = notInThePast('date', date.value, ctx.clock());
  if (!upcoming.ok) return upcoming.reply;
  const fits = withinCapacity(tenant, rc.value, guests.value);
  if (!fits.ok) return fits.reply;
  const covers = coversOf(body);
  if (!covers.ok) return covers.reply;
  const tableIds = [...(given(body.table_id) ? [body.table_id as string] : []), ...((body.table_ids as string[] | undefined) ?? [])];
  const tables = tableIds.length > 0 ? tablesOf(tenant, rc.value, tableIds) : { ok: true as const, value: [assignTable(tenant, rc.value, guests.value)] };
  if (!tables.ok) return tables.reply;
  const customer = customerOf(ctx);
  if (!customer.ok) return customer.reply;

  const record = buildReservationRecord(tenant, {
    id: ctx.newId(), revenueCenterId: rc.value.id, tables: tables.value, customer: toReservationCustomer(customer.value),
    guestCount: guests.value, occupiedSeatCount: 0, ...covers.value,
    date: date.value, ...(end.value ? { estimatedDischargedAt: end.value } : {}),
    note: stringOr(body.note, ''), hotelRoomNumber: '', isDraft: body.is_draft === true,
    status: 'init', createdAt: ctx.clock(), createdBy: API_CREATOR, check: null, reservationPayment: null,
  });
  tenant.reservation_customers.set(customer.value.id, customer.value);
  tenant.reservations.set(record.id, record);
  return { status: 201, body: { reservation: record } };
}

/** Assumption (contract's read side): GET /v1/reservations/{id} → {"reservation": {…}}; unknown or malformed id → 404. */
export function showReservation(ctx: EndpointContext, id: string): SandboxReply {
  const record = isUuid(id) ? ctx.tenant.reservations.get(id) : undefined;
  return record ? { status: 200, body: { reservation: record } } : E.reservationNotFound();
}

/**
 * Assumption (contract's read side): GET /v1/reservations?date=&revenue_center_id=&page=&per_page=
 * → {"reservations": […], "meta": {…}}, the reservations of that venue-local date, by date then id.
 */
export function listReservations(ctx: EndpointContext): SandboxReply {
  const date = ctx.query.get('date');
  if (!isLocalDate(date)) return E.badRequest('date is required, of the form YYYY-MM-DD');
  const pageRequest = pageRequestOf(ctx.query);
  if (!isPageRequest(pageRequest)) return pageRequest;
  const revenueCenterId = ctx.query.get('revenue_center_id');
  // Records keep the venue offset, so their first ten characters are the venue-local date.
  const matching = [...ctx.tenant.reservations.values()]
    .filter((r) => r.date.slice(0, 10) === date && (revenueCenterId === null || r.revenue_center_id === revenueCenterId))
    .sort((a, b) => (a.date === b.date ? compare(a.id, b.id) : compare(a.date, b.date)));
  const { items, meta } = paginate(matching, pageRequest);
  return { status: 200, body: { reservations: items, meta } };
}

function customerOf(ctx: EndpointContext): Checked<ReservationCustomerProfile> {
  if (given(ctx.body.customer_id)) return knownCustomer(ctx.tenant, ctx.body.customer_id);
  if (given(ctx.body.customer)) return inlineCustomer(ctx, ctx.body.customer);
  return { ok: false, reply: E.invalidParameter('customer_id or customer is required') };
}

export function coversOf(body: Record<string, unknown>): Checked<{ maleCover: number; femaleCover: number; childCover: number }> {
  const male = coverOf('male_cover', body.male_cover);
  if (!male.ok) return male;
  const female = coverOf('female_cover', body.female_cover);
  if (!female.ok) return female;
  const child = coverOf('child_cover', body.child_cover);
  if (!child.ok) return child;
  return { ok: true, value: { maleCover: male.value, femaleCover: female.value, childCover: child.value } };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
