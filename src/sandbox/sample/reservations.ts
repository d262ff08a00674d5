import { createRandom } from '../random';
import type {
  Check, Customer, OffDayRecord, PaymentRequestRecord, ReservationCustomer, ReservationCustomerProfile, ReservationRecord,
} from '../records';
import { buildReservationRecord, toReservationCustomer } from '../reservation/record';
import { toVenueIso } from '../venueTime';
import { buildCheck, numberChecks, type CheckContext } from './checks';
import type { Entry, SchedulePlan } from './schedule';

const NOTES = ['Anniversary dinner', 'High chair needed', 'Window table, please'];
/** Parties still to come or at their table: the seats they hold. */
const SEATED: ReadonlySet<string> = new Set(['seated', 'completed', 'walk_in']);

export interface ScheduleRecordsContext {
  checks: CheckContext;
  venue: { store_id: string; slug: string; name: string; bookers: readonly string[] };
  /** POS customers and the reservation service's book: the same people, the same ids, the same order. */
  customers: readonly Customer[];
  profiles: readonly ReservationCustomerProfile[];
  revenueCenterIds: readonly string[];
}

/**
 * The records of a plan: each party's reservation (deliveries have none), its check when it has one (a hotel
 * guest's lunch and dinner share one), the deposit requests, and the holiday's off day. A party's check belongs to
 * its guest, its table and its day, by construction.
 */
export function buildScheduleRecords(plan: SchedulePlan, ctx: ScheduleRecordsContext) {
  const parties = plan.entries.map((entry) => partyOf(entry, ctx));
  const checks = parties.flatMap((p) => (p.check ? [p.check] : []));
  numberChecks(checks);
  const checkOf = new Map(parties.filter((p) => p.check).map((p) => [p.entry.stream, p.check!]));
  const reservations: ReservationRecord[] = [];
  const paymentRequests: PaymentRequestRecord[] = [];
  parties.forEach((party, n) => {
    if (party.entry.kind === 'delivery') return;
    const check = checkOf.get(party.entry.sharesCheckOf ?? party.entry.stream) ?? null;
    const { record, paymentRequest } = reservationOf(party, check, n, ctx);
    reservations.push(record);
    if (paymentRequest) paymentRequests.push(paymentRequest);
  });
  const offDays = plan.holidayDate ? [holidayOffDay(plan.holidayDate, ctx)] : [];
  return { checks, reservations, paymentRequests, offDays };
}

interface Party {
  entry: Entry;
  id: string;
  guests: number;
  customer: ReservationCustomer;
  email: string;
  phone: string;
  check: Check | null;
  paymentId: string | null;
}

function partyOf(entry: Entry, ctx: ScheduleRecordsContext): Party {
  const random = createRandom(`${ctx.checks.seed.key}:${entry.stream}`);
  const id = random.uuid();
  const capacity = entry.table?.capacity ?? 2;
  const guests = random.int(Math.min(2, capacity), capacity);
  const profile = entry.customer === null ? undefined : ctx.profiles[entry.customer];
  const posCustomer = entry.customer === null ? null : ctx.customers[entry.customer] ?? null;
  const check = entry.check && !entry.sharesCheckOf ? buildCheck({
    random, variety: entry.variety, rcIndex: entry.rcIndex, table: entry.table, customer: posCustomer, guests,
    businessDate: entry.date, openedAt: entry.check.openedAt, closedAt: entry.check.closedAt, delivery: entry.kind === 'delivery',
  }, ctx.checks) : null;
  const paymentId = entry.withPayment ? random.uuid() : null;
  // A guest who gave no name is the book's anonymous guest (the service has an "anonymous customers" group).
  const customer: ReservationCustomer = profile ? toReservationCustomer(profile) : {
    id: random.uuid(), first_name: 'Walk-in', last_name: 'Guest', nickname: null, is_anonym: true, primary_phone_number: '', type_name: 'normal',
  };
  return { entry, id, guests, customer, email: profile?.email ?? '', phone: profile?.primary_phone_number ?? '', check, paymentId };
}

function reservationOf(party: Party, check: Check | null, n: number, ctx: ScheduleRecordsContext) {
  const { entry, guests, paymentId } = party;
  const childCover = guests >= 3 && n % 9 === 4 ? 1 : 0;
  const maleCover = Math.floor((guests - childCover) / 2) + (n % 2);
  const amount = guests * 20;
  const record = buildReservationRecord(ctx.venue, {
    id: party.id,
    revenueCenterId: ctx.revenueCenterIds[entry.rcIndex],
    tables: [entry.table!],
    customer: party.customer,
    guestCount: guests,
    occupiedSeatCount: SEATED.has(entry.kind) ? guests : 0,
    maleCover: Math.min(maleCover, guests - childCover),
    femaleCover: guests - childCover - Math.min(maleCover, guests - childCover),
    childCover,
    date: { date: entry.date, time: entry.time },
    stayMinutes: entry.stayMinutes,
    note: entry.note || (n % 7 === 2 ? NOTES[0] : n % 11 === 5 ? NOTES[1] : n % 13 === 8 ? NOTES[2] : ''),
    hotelRoomNumber: entry.hotelRoom,
    isDraft: false,
    status: entry.status,
    createdAt: entry.bookedAt,
    createdBy: entry.kind === 'walk_in' ? 'Walk-in' : ctx.venue.bookers[n % ctx.venue.bookers.length],
    check: check ? { id: check.id, alias: check.alias, status: check.status } : null,
    reservationPayment: paymentId ? { id: paymentId, amount, currency: 'EUR', status: 'active' } : null,
  });
  if (entry.check?.closedAt && SEATED.has(entry.kind)) record.discharged_at = toVenueIso(entry.check.closedAt);
  const sms = n % 2 === 0;
  const paymentRequest: PaymentRequestRecord | null = paymentId ? {
    id: paymentId,
    reservation_id: party.id,
    amount,
    currency: 'EUR',
    phone_number: party.phone.replace(/^\+/, ''),
    email: party.email,
    send_email: true,
    send_sms: sms,
    sms_content: sms ? `Your table at ${ctx.venue.name} is held for you: pay the deposit to confirm.` : '',
    note: 'Deposit for your booking',
    expiration_time: 48,
    language: 'EN',
    status: 'active',
  } : null;
  return { record, paymentRequest };
}

/** The holiday: every revenue center closed all day, the note shown to guests in the document's locales. */
function holidayOffDay(date: string, ctx: ScheduleRecordsContext): OffDayRecord {
  const random = createRandom(`${ctx.checks.seed.key}:holiday`);
  const [main, ...children] = ctx.revenueCenterIds;
  return {
    id: random.uuid(),
    store_id: ctx.venue.store_id,
    revenue_center_id: main,
    child_revenue_center_ids: children,
    type: 1,
    date: `${date} 00:00`,
    end_date: `${date} 23:59`,
    active_for_reservations: false,
    active_for_online: false,
    active_for_requests: false,
    is_note_visible: true,
    partial: false,
    translations: [
      { locale: 'en', text: 'Closed for the holiday' },
      { locale: 'tr', text: 'Bayram nedeniyle kapalıyız' },
      { locale: 'de', text: 'Feiertags geschlossen' },
    ],
  };
}
