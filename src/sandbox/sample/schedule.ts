import { seedFrom } from '../random';
import type { VenueTable } from '../records';
import { addDays, localDateOf, localToInstant } from '../venueTime';
import { Occupancy, slotTime, type TablePlan } from './occupancy';
import type { VenueSeed } from './venueSeed';

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
/** The sample covers the week before today and the two weeks from today: each weekday exactly three times. */
export const PAST_DAYS = 7;
export const FUTURE_DAYS = 13;
/** The holiday is this many days after the busy Saturday: a Monday. */
const HOLIDAY_AFTER_BUSY = 2;
const HOLIDAY_CANCELLED = 5;
const SATURDAY = 6;

/**
 * What happens to a party: a booking still to come, a party at its table now, one that ate and paid, a guest who
 * came without booking, one who never came, a booking called off, or a delivery (no reservation at all).
 */
export type EntryKind = 'booked' | 'seated' | 'completed' | 'walk_in' | 'no_show' | 'cancelled' | 'delivery';

/** One party of the plan, before any record exists; the builders turn it into a reservation and maybe a check. */
export interface Entry {
  /** Seeds the entry's own random stream, so its ids depend on nothing but the block and its place in it. */
  stream: string;
  kind: EntryKind;
  /** The record's `status`. Only "init" is documented; the rest are the sandbox's names. */
  status: string;
  rcIndex: number;
  /** Null only for a delivery. */
  table: VenueTable | null;
  /** Index into the venue's customers; null: a guest who gave no name. */
  customer: number | null;
  date: string;
  time: string;
  stayMinutes: number;
  /** When the booking was made. */
  bookedAt: Date;
  /** The party's check: opened and (when closed) closed then; its business date is the entry's date. */
  check: { openedAt: Date; closedAt: Date | null } | null;
  /** A hotel guest's lunch and dinner run on one tab: the stream of the entry that owns the shared check. */
  sharesCheckOf?: string;
  withPayment: boolean;
  note: string;
  hotelRoom: string;
  /** Picks the check's variety (discount, offer, complimentary line, …), as a check index did before. */
  variety: number;
}

export interface SchedulePlan {
  entries: Entry[];
  busyDate?: string;
  holidayDate?: string;
}

interface PlanContext {
  seed: VenueSeed;
  now: Date;
  today: string;
  occupancy: Occupancy;
  tables: TablePlan;
}

/** The first Saturday after today (1 to 7 days ahead): always in the future, so every check on it is still open. */
export function busyDateOf(today: string): string {
  const weekday = new Date(`${today}T00:00:00Z`).getUTCDay();
  return addDays(today, ((SATURDAY - weekday + 6) % 7) + 1);
}

export function holidayDateOf(today: string): string {
  return addDays(busyDateOf(today), HOLIDAY_AFTER_BUSY);
}

/**
 * The venue's three weeks, block by block. Blocks whose shape never depends on `now` come first (the busy Saturday,
 * the holiday, the parties seated now, then the head of each past and future day), so the records SAMPLE names are
 * the same ones for any `now`; what depends on the hour (today's slots) comes last.
 */
export function planVenue(seed: VenueSeed, tables: readonly VenueTable[], revenueCenterIds: readonly string[], now: Date): SchedulePlan {
  const today = localDateOf(now);
  const ctx: PlanContext = { seed, now, today, occupancy: new Occupancy(), tables: { all: tables, revenueCenterIds } };
  const entries: Entry[] = [];
  const busyDate = seed.busySaturday ? busyDateOf(today) : undefined;
  const holidayDate = seed.holiday ? holidayDateOf(today) : undefined;
  if (busyDate) entries.push(...busySaturday(busyDate, ctx));
  if (holidayDate) entries.push(...holiday(holidayDate, ctx));
  entries.push(...seatedNow(ctx));
  for (let n = 1; n <= PAST_DAYS; n++) entries.push(...ordinaryDay(addDays(today, -n), `past:${n}`, ctx));
  for (let n = 1; n <= FUTURE_DAYS; n++) {
    const date = addDays(today, n);
    if (date !== busyDate && date !== holidayDate) entries.push(...ordinaryDay(date, `future:${n}`, ctx));
  }
  entries.push(...ordinaryDay(today, 'today', ctx));
  return { entries, busyDate, holidayDate };
}

/**
 * 50 reservations over 30 distinct checks: 10 hotel guests with lunch and dinner at their table on one tab, 20 parties
 * who pre-ordered, 10 bookings without a check (three asked for a deposit).
 */
function busySaturday(date: string, ctx: PlanContext): Entry[] {
  const { all } = ctx.tables;
  if (all.length < 20) throw new Error('Sandbox sample: the busy Saturday needs at least 20 tables');
  const entries: Entry[] = [];
  const customers = ctx.seed.customers.length;
  for (let p = 0; p < 10; p++) {
    const lunch = booking(ctx, `busy:${p}:lunch`, date, '13:00', all[p], (p * 3 + 1) % customers, { variety: p, preOrder: true });
    lunch.hotelRoom = String(1201 + p * 3);
    const dinner = booking(ctx, `busy:${p}:dinner`, date, '19:30', all[p], lunch.customer, { variety: p });
    dinner.hotelRoom = lunch.hotelRoom;
    dinner.sharesCheckOf = lunch.stream;
    entries.push(lunch, dinner);
  }
  for (let p = 10; p < 30; p++) {
    const table = all[10 + (p % 10)];
    entries.push(booking(ctx, `busy:${p}`, date, p < 20 ? '19:00' : '21:30', table, (p * 3 + 1) % customers, { variety: p, preOrder: true }));
  }
  for (let p = 30; p < 40; p++) {
    const entry = booking(ctx, `busy:${p}`, date, '12:30', all[p - 20], (p * 3 + 1) % customers, { variety: p });
    entry.withPayment = p % 3 === 0;
    entries.push(entry);
  }
  return entries;
}

function holiday(date: string, ctx: PlanContext): Entry[] {
  return Array.from({ length: HOLIDAY_CANCELLED }, (_, e) => {
    const placed = ctx.occupancy.place(ctx.tables, ctx.seed, date, e, false);
    if (!placed) throw new Error('Sandbox sample: no table for a holiday booking');
    const entry = booking(ctx, `holiday:${e}`, date, placed.time, placed.table, (e * 11 + 5) % ctx.seed.customers.length, { variety: e });
    return { ...entry, kind: 'cancelled' as const, status: 'cancelled', note: 'Cancelled: the restaurant is closed for the holiday' };
  });
}

/** Parties at their tables now, on open checks: at the bar (when the venue has one) guests who gave no name. */
function seatedNow(ctx: PlanContext): Entry[] {
  const { seed, now } = ctx;
  return Array.from({ length: seed.seatedNow }, (_, k) => {
    const rcIndex = k % seed.revenueCenters.length;
    const walkIn = seed.revenueCenters[rcIndex].walkIns;
    // Opened within the last two hours, so every party is still within its stay.
    const openedAt = new Date(now.getTime() - (20 + 12 * k) * MINUTE_MS);
    const start = new Date(Math.floor((openedAt.getTime() - 5 * MINUTE_MS) / (5 * MINUTE_MS)) * 5 * MINUTE_MS);
    const stay = seed.revenueCenters[rcIndex].stayMinutes;
    const table = ctx.occupancy.placeAt(ctx.tables.all.filter((t) => t.revenue_center_id === ctx.tables.revenueCenterIds[rcIndex]), start, stay, k);
    const local = slotTime(start);
    return {
      stream: `seated:${k}`, kind: walkIn ? 'walk_in' : 'seated', status: walkIn ? 'walk_in' : 'seated', rcIndex, table,
      customer: walkIn ? null : (k * 13 + 2) % seed.customers.length, date: local.date, time: local.time, stayMinutes: stay,
      bookedAt: walkIn ? start : new Date(start.getTime() - (2 + k) * DAY_MS), check: { openedAt, closedAt: null },
      withPayment: false, note: '', hotelRoom: '', variety: 100 + k,
    };
  });
}

/**
 * An ordinary day, as many parties as its weekday brings. The first entries have fixed parts whatever the weekday
 * (SAMPLE's records): a past day opens with a party that paid, then a walk-in (or a no-show), then a delivery (or a
 * cancellation); a future day with a booking that asked for a deposit, then one without. Today's entries are placed
 * around the hour: finished ones have paid, later ones are still to come, and the service under way is seatedNow's.
 */
function ordinaryDay(date: string, block: string, ctx: PlanContext): Entry[] {
  const { seed, now } = ctx;
  const weekday = new Date(`${date}T00:00:00Z`).getUTCDay();
  const entries: Entry[] = [];
  for (let e = 0; e < seed.weekdayVolume[weekday]; e++) {
    const planned = kindOf(date, e, ctx);
    const walkIn = planned === 'walk_in' && seed.revenueCenters.some((rc) => rc.walkIns);
    const placed = planned === 'delivery' ? undefined : ctx.occupancy.place(ctx.tables, seed, date, e, walkIn);
    if (planned !== 'delivery' && !placed) continue;
    const time = placed?.time ?? slotTime(new Date(localToInstant({ date, time: '19:00' }).getTime() + e * 7 * MINUTE_MS)).time;
    const start = localToInstant({ date, time });
    const stay = placed ? seed.revenueCenters[placed.rcIndex].stayMinutes : 45;
    // Today: a party whose time is up has paid, one at its table now is seatedNow's, later ones are still to come.
    const finished = start.getTime() + stay * MINUTE_MS <= now.getTime();
    if (block === 'today' && start <= now && !finished) continue;
    const kind = block === 'today' && finished ? 'completed' : planned;
    const customer = walkIn ? null : (hash(block) + e * 17) % seed.customers.length;
    const entry = booking(ctx, `${block}:${e}`, date, time, placed?.table ?? null, customer, { variety: 200 + e + hash(block) });
    entry.rcIndex = placed?.rcIndex ?? 0;
    entry.stayMinutes = stay;
    entry.kind = kind;
    if (kind === 'completed' || kind === 'walk_in' || kind === 'delivery') {
      const openedAt = new Date(start.getTime() + 5 * MINUTE_MS);
      entry.check = { openedAt, closedAt: new Date(start.getTime() + (stay - 5 - (e % 20)) * MINUTE_MS) };
      if (kind === 'walk_in') entry.bookedAt = start;
    }
    entry.status = kind === 'booked' ? (e % 7 === 5 ? 'init' : 'confirmed') : kind;
    entry.withPayment = kind === 'booked' && (e === 0 || e % 6 === 2);
    entries.push(entry);
  }
  return entries;
}

function kindOf(date: string, e: number, ctx: PlanContext): EntryKind {
  const { seed } = ctx;
  const past = localToInstant({ date, time: '00:00' }).getTime() < localToInstant({ date: ctx.today, time: '00:00' }).getTime();
  const isToday = date === ctx.today;
  if (!past && !isToday) return e > 1 && e % 11 === 8 ? 'cancelled' : 'booked';
  if (isToday) return 'booked'; // finished ones become 'completed' by the hour (ordinaryDay)
  if (e === 1) return seed.revenueCenters.some((rc) => rc.walkIns) ? 'walk_in' : 'no_show';
  if (e === 2) return seed.deliveries ? 'delivery' : 'cancelled';
  if (e === 0) return 'completed';
  if (e % 8 === 5) return 'no_show';
  if (e % 10 === 7) return 'cancelled';
  if (e % 6 === 4 && seed.revenueCenters.some((rc) => rc.walkIns)) return 'walk_in';
  if (e % 9 === 6 && seed.deliveries) return 'delivery';
  return 'completed';
}

function booking(ctx: PlanContext, stream: string, date: string, time: string, table: VenueTable | null, customer: number | null,
  options: { variety: number; preOrder?: boolean }): Entry {
  const rcIndex = table ? Math.max(0, ctx.tables.revenueCenterIds.indexOf(table.revenue_center_id)) : 0;
  const stay = ctx.seed.revenueCenters[rcIndex].stayMinutes;
  const start = localToInstant({ date, time });
  if (table) ctx.occupancy.reserve(table, start, stay);
  // Booked one to ten days ahead, and never after now.
  const before = Math.min(ctx.now.getTime(), start.getTime());
  const bookedAt = new Date(before - (1 + (hash(stream) % 10)) * DAY_MS - (hash(stream) % 600) * MINUTE_MS);
  return {
    stream, kind: 'booked', status: hash(stream) % 5 === 0 ? 'init' : 'confirmed', rcIndex, table, customer, date, time,
    stayMinutes: stay, bookedAt,
    // A pre-order (set menu, deposit) opens its check when the booking is made; the check is the booking's day's.
    check: options.preOrder ? { openedAt: new Date(bookedAt.getTime() + 2 * MINUTE_MS), closedAt: null } : null,
    withPayment: false, note: '', hotelRoom: '', variety: options.variety,
  };
}

/** Spreads guests, booking times and varieties over the entries of a block, the same way on every build. */
function hash(text: string): number {
  return seedFrom(text) % 10_007;
}
