import type { ReservationCustomerProfile, RevenueCenter, TenantState, VenueTable } from '../records';
import { given, isRecord, isUuid } from '../validate';
import { localToInstant, parseLocalDateTime, toVenueIso, type LocalDateTime } from '../venueTime';
import { accept, refuse, type Checked, type EndpointContext } from './context';
import { RESERVATION_ERRORS as E } from './errors';

/** Checks shared by the bodies that name a revenue center, tables, dates and a customer. */

export function revenueCenterOf(tenant: TenantState, value: unknown, field = 'revenue_center_id'): Checked<RevenueCenter> {
  if (!given(value)) return refuse(E.invalidParameter(`${field} is required`));
  const found = isUuid(value) ? tenant.revenue_centers.find((rc) => rc.id === value) : undefined;
  return found ? accept(found) : refuse(E.unknownReference(`${field} is not a revenue center of this store`));
}

/** The named tables, each once, all of the revenue center. */
export function tablesOf(tenant: TenantState, revenueCenter: RevenueCenter, ids: readonly string[]): Checked<VenueTable[]> {
  const tables: VenueTable[] = [];
  for (const id of new Set(ids)) {
    const table = tenant.tables.find((t) => t.id === id);
    if (!table || table.revenue_center_id !== revenueCenter.id) {
      return refuse(E.unknownReference(`table ${id} is not a table of revenue center ${revenueCenter.name}`));
    }
    tables.push(table);
  }
  return accept(tables);
}

/**
 * Assumption: a reservation made without tables gets one, the smallest of the
 * revenue center that seats the party (else the largest), because the record
 * types table_id as a string, never null.
 */
export function assignTable(tenant: TenantState, revenueCenter: RevenueCenter, guestCount: number): VenueTable {
  const tables = tenant.tables.filter((t) => t.revenue_center_id === revenueCenter.id).sort((a, b) => a.capacity - b.capacity);
  const fitting = tables.find((t) => t.capacity >= guestCount) ?? tables[tables.length - 1];
  if (!fitting) throw new Error(`assignTable: revenue center ${revenueCenter.id} has no tables`);
  return fitting;
}

export function localDateTimeOf(field: string, value: unknown): Checked<LocalDateTime> {
  if (!given(value)) return refuse(E.invalidParameter(`${field} is required`));
  const parsed = parseLocalDateTime(value);
  return parsed ? accept(parsed) : refuse(E.invalidParameter(`${field} must be a date of the form YYYY-MM-DD HH:MM`));
}

export function optionalLocalDateTimeOf(field: string, value: unknown): Checked<LocalDateTime | undefined> {
  return given(value) ? localDateTimeOf(field, value) : accept(undefined);
}

/** estimated_discharged_at, when given, may not be before date. */
export function endAfterStart(start: LocalDateTime, end: LocalDateTime | undefined): Checked<void> {
  if (end && `${end.date} ${end.time}` < `${start.date} ${start.time}`) {
    return refuse(E.invalidParameter('estimated_discharged_at must not be before date'));
  }
  return accept(undefined);
}

/** A booking starts now or later: the venue's clock, in venue time. */
export function notInThePast(field: string, date: LocalDateTime, now: Date): Checked<void> {
  if (localToInstant(date).getTime() >= now.getTime() - 60_000) return accept(undefined);
  const local = toVenueIso(now);
  return refuse(E.dateInThePast(`${field} ${date.date} ${date.time} is in the past (it is ${local.slice(0, 10)} ${local.slice(11, 16)} at the venue)`));
}

/**
 * A party fits the revenue center: at most as many guests as its tables seat together. Assumption: the document
 * shows no capacity rule; this is the sandbox's, the least a real service refuses ("a booking for 400").
 */
export function withinCapacity(tenant: TenantState, revenueCenter: RevenueCenter, guests: number): Checked<void> {
  const seats = tenant.tables.filter((t) => t.revenue_center_id === revenueCenter.id).reduce((a, t) => a + t.capacity, 0);
  if (guests <= seats) return accept(undefined);
  return refuse(E.beyondCapacity(`guest_count ${guests} is beyond the capacity of ${revenueCenter.name} (${seats} seats)`));
}

export function positiveIntegerOf(field: string, value: unknown, fallback?: number): Checked<number> {
  if (!given(value)) return fallback === undefined ? refuse(E.invalidParameter(`${field} is required`)) : accept(fallback);
  return Number.isInteger(value) && (value as number) > 0
    ? accept(value as number) : refuse(E.invalidParameter(`${field} must be a positive integer`));
}

export function coverOf(field: string, value: unknown): Checked<number> {
  if (!given(value)) return accept(0);
  return Number.isInteger(value) && (value as number) >= 0
    ? accept(value as number) : refuse(E.invalidParameter(`${field} must be a non-negative integer`));
}

/** An existing customer of the book by id; not stored anywhere new. */
export function knownCustomer(tenant: TenantState, id: unknown): Checked<ReservationCustomerProfile> {
  const found = isUuid(id) ? tenant.reservation_customers.get(id) : undefined;
  return found ? accept(found) : refuse(E.unknownReference('customer_id is not a customer of this store'));
}

/** An inline customer becomes a new entry of the book (stored by the caller once the whole body passed). */
export function inlineCustomer(ctx: EndpointContext, value: unknown): Checked<ReservationCustomerProfile> {
  if (!isRecord(value)) return refuse(E.invalidParameter('customer must be an object'));
  for (const field of ['first_name', 'last_name', 'primary_phone_number', 'email']) {
    if (given(value[field]) && typeof value[field] !== 'string') return refuse(E.invalidParameter(`customer.${field} must be a string`));
  }
  if (typeof value.first_name !== 'string' || value.first_name.trim() === '') {
    return refuse(E.invalidParameter('customer.first_name is required'));
  }
  return accept({
    id: ctx.newId(),
    first_name: value.first_name,
    last_name: typeof value.last_name === 'string' ? value.last_name : '',
    nickname: null,
    is_anonym: false,
    primary_phone_number: typeof value.primary_phone_number === 'string' ? value.primary_phone_number : '',
    type_name: 'normal',
    email: typeof value.email === 'string' ? value.email : '',
  });
}

export function stringOr(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value : fallback;
}
