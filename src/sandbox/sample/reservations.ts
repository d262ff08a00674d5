import type { Random } from '../random';
import type { Check, PaymentRequestRecord, ReservationCustomerProfile, ReservationRecord, RevenueCenter, VenueTable } from '../records';
import { buildReservationRecord, toReservationCustomer } from '../reservation/record';
import { addDays, localDateOf } from '../venueTime';
import type { VenueSeed } from './venueSeed';

/** Reservations cover this many days from today. */
export const RESERVATION_DAYS = 14;
/** The busy day is today plus this many days. */
export const BUSY_DAY_OFFSET = 1;
/** The busy day's reservations: 20 parties over two tables sharing a check, 10 over one table. */
const BUSY_DAY_PAIRS = 20;
const BUSY_DAY_SINGLES = 10;
const BUSY_TIMES = ['12:00', '12:30', '13:00', '13:30', '19:00', '19:30', '20:00', '20:30', '21:00', '21:30'];
const NOTES = ['Anniversary dinner', 'High chair needed', 'Window table, please'];

export interface ReservationContext {
  seed: VenueSeed;
  random: Random;
  now: Date;
  venue: { store_id: string; slug: string };
  /** In the order of seed.revenueCenters. */
  revenueCenters: RevenueCenter[];
  tables: VenueTable[];
  customers: ReservationCustomerProfile[];
  checks: Check[];
}

interface Booking {
  rcIndex: number;
  table: VenueTable;
  date: string;
  time: string;
  customer: ReservationCustomerProfile;
  check: Check | null;
  withPayment: boolean;
}

/**
 * Lunch and dinner reservations for RESERVATION_DAYS days from today. The
 * loops never look at `now`, so the ids come out the same on every start.
 */
export function buildReservations(ctx: ReservationContext) {
  const reservations: ReservationRecord[] = [];
  const paymentRequests: PaymentRequestRecord[] = [];
  const today = localDateOf(ctx.now);
  let n = 0;
  for (let day = 0; day < RESERVATION_DAYS; day += 1) {
    const date = addDays(today, day);
    const bookings = day === BUSY_DAY_OFFSET && ctx.seed.busyDayCheckCount > 0 ? busyDay(date, ctx) : ordinaryDay(date, day, ctx);
    for (const booking of bookings) {
      const { record, paymentRequest } = reservationOf(booking, n, ctx);
      reservations.push(record);
      if (paymentRequest) paymentRequests.push(paymentRequest);
      n += 1;
    }
  }
  return { reservations, paymentRequests };
}

/** Every slot of every revenue center; a third carry a check from the checks not kept for the busy day. */
function ordinaryDay(date: string, day: number, ctx: ReservationContext): Booking[] {
  const pool = ctx.checks.slice(ctx.seed.busyDayCheckCount);
  const bookings: Booking[] = [];
  ctx.seed.revenueCenters.forEach((rcSeed, rcIndex) => {
    const tables = tablesOf(rcIndex, ctx);
    rcSeed.slots.forEach((time, s) => {
      const k = day * 31 + rcIndex * 7 + s;
      bookings.push({
        rcIndex, date, time,
        table: tables[(s + day) % tables.length]!,
        customer: ctx.customers[(k * 7 + 3) % ctx.customers.length]!,
        check: k % 3 === 0 ? pool[Math.floor(k / 3) % pool.length]! : null,
        withPayment: k % 5 === 2,
      });
    });
  });
  return bookings;
}

/** 50 reservations over exactly 30 distinct checks: the list the gateway's tests and benchmark load. */
function busyDay(date: string, ctx: ReservationContext): Booking[] {
  const parties = BUSY_DAY_PAIRS + BUSY_DAY_SINGLES;
  const bookings: Booking[] = [];
  for (let party = 0; party < parties; party += 1) {
    const rcIndex = party % ctx.revenueCenters.length;
    const slot = Math.floor(party / ctx.revenueCenters.length);
    const tables = tablesOf(rcIndex, ctx);
    const size = party < BUSY_DAY_PAIRS ? 2 : 1;
    for (let t = 0; t < size; t += 1) {
      bookings.push({
        rcIndex, date,
        time: BUSY_TIMES[slot % BUSY_TIMES.length]!,
        table: tables[(slot + t) % tables.length]!,
        customer: ctx.customers[(party * 5) % ctx.customers.length]!,
        check: ctx.checks[party]!,
        withPayment: party % 10 === 3 && t === 0,
      });
    }
  }
  return bookings;
}

function reservationOf(booking: Booking, n: number, ctx: ReservationContext) {
  const { random, seed } = ctx;
  const id = random.uuid();
  const guestCount = random.int(Math.min(2, booking.table.capacity), booking.table.capacity);
  const childCover = guestCount >= 3 && n % 9 === 4 ? 1 : 0;
  const maleCover = random.int(0, guestCount - childCover);
  const paymentId = booking.withPayment ? random.uuid() : null;
  const amount = guestCount * 20;
  const record = buildReservationRecord(ctx.venue, {
    id,
    revenueCenterId: ctx.revenueCenters[booking.rcIndex]!.id,
    tables: [booking.table],
    customer: toReservationCustomer(booking.customer),
    guestCount,
    occupiedSeatCount: booking.check ? guestCount : 0,
    maleCover,
    femaleCover: guestCount - childCover - maleCover,
    childCover,
    date: { date: booking.date, time: booking.time },
    stayMinutes: seed.revenueCenters[booking.rcIndex]!.stayMinutes,
    note: n % 7 === 2 ? NOTES[0]! : n % 11 === 5 ? NOTES[1]! : n % 13 === 8 ? NOTES[2]! : '',
    hotelRoomNumber: n % 17 === 6 ? String(1200 + (n % 40)) : '',
    isDraft: false,
    // Only "init" is documented; "confirmed" is the sandbox's guess for a booking the venue accepted.
    status: n % 4 === 0 ? 'init' : 'confirmed',
    createdAt: new Date(ctx.now.getTime() - (1 + (n % 20)) * 86_400_000 - ((n * 37) % 600) * 60_000),
    createdBy: seed.bookers[n % seed.bookers.length]!,
    check: booking.check ? { id: booking.check.id, alias: booking.check.alias, status: booking.check.status } : null,
    reservationPayment: paymentId ? { id: paymentId, amount, currency: 'EUR', status: 'active' } : null,
  });
  const paymentRequest: PaymentRequestRecord | null = paymentId ? {
    id: paymentId,
    reservation_id: id,
    amount,
    currency: 'EUR',
    phone_number: booking.customer.primary_phone_number,
    email: booking.customer.email,
    send_email: true,
    send_sms: n % 2 === 0,
    sms_content: n % 2 === 0 ? `Your table at ${seed.name} is held for you: pay the deposit to confirm.` : '',
    note: 'Deposit for your booking',
    expiration_time: 48,
    language: 'EN',
    status: 'active',
  } : null;
  return { record, paymentRequest };
}

function tablesOf(rcIndex: number, ctx: ReservationContext): VenueTable[] {
  const rcId = ctx.revenueCenters[rcIndex]!.id;
  return ctx.tables.filter((t) => t.revenue_center_id === rcId);
}

