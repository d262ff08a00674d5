import { formatMoney, taxPortion } from '../money';
import type { Random } from '../random';
import type { Check, CheckItem, CheckPayment, Customer, Employee, RevenueCenter, VenueTable } from '../records';
import { unixSeconds } from '../venueTime';
import { checkSummary, checkTotals, lineSummary, type CheckTotals } from './checkTotals';
import type { MenuItem, PosCatalog } from './posCatalog';
import type { VenueSeed } from './venueSeed';

const MINUTE_MS = 60_000;
const FOOD_NOTES = ['no onions', 'extra parmesan', 'sauce on the side', 'well done'];
const CARD_BRANDS = ['visa', 'mastercard', 'amex'];

export interface CheckContext {
  seed: VenueSeed;
  /** The venue-local date of `now`: shifts are counted from it. */
  today: string;
  propertyId: string;
  /** In the order of seed.revenueCenters. */
  revenueCenters: RevenueCenter[];
  /** Front-of-house staff who open checks. */
  servers: Employee[];
  catalog: PosCatalog;
}

/** One party's check as the schedule has it: where, for whom, when (src/sandbox/sample/schedule.ts). */
export interface CheckSpec {
  /** The party's own stream: the check's ids and contents depend on nothing else. */
  random: Random;
  /** What kind of check it is beyond its party (discount, offer, complimentary line, deposit, …). */
  variety: number;
  rcIndex: number;
  table: VenueTable | null;
  customer: Customer | null;
  guests: number;
  /** The party's day: the check's business date. */
  businessDate: string;
  openedAt: Date;
  closedAt: Date | null;
  delivery: boolean;
}

/**
 * A party's check. What it holds follows from `variety` and the party's own stream, so SAMPLE's picks never depend
 * on `now`; only the timestamps move with it.
 */
export function buildCheck(spec: CheckSpec, ctx: CheckContext): Check {
  const { seed, catalog } = ctx;
  const { random, variety: i, delivery } = spec;
  const id = random.uuid();
  const open = spec.closedAt === null;
  const rcSeed = seed.revenueCenters[spec.rcIndex];
  const revenueCenter = ctx.revenueCenters[spec.rcIndex];
  const walkIn = spec.customer === null;
  const { table, customer, businessDate } = spec;
  const lines = pickLines(i, rcSeed.walkIns, delivery, random, catalog);
  const discount = i % 5 === 0 ? catalog.discounts[Math.floor(i / 5) % catalog.discounts.length] : undefined;
  const offer = i % 7 === 0 ? catalog.offers[Math.floor(i / 7) % catalog.offers.length] : undefined;
  const totals = checkTotals(lines, { discount: discount?.cents ?? 0, offer: offer?.cents ?? 0 },
    delivery ? null : rcSeed.serviceChargePercent, catalog.tax.rate);
  const payments = buildPayments(i, open, totals.total, businessDate, rcSeed.walkIns, random, catalog);
  const paid = payments.reduce((a, p) => a + Math.round(Number(p.paid_amount) * 100), 0);
  const guests = spec.guests;
  const male = random.int(0, guests);
  const child = guests - male > 1 && i % 8 === 2 ? 1 : 0;
  const dayOffset = Math.round((Date.parse(businessDate) - Date.parse(ctx.today)) / 86_400_000);
  return {
    id,
    alias: '', // numbered below, once all checks exist
    created_at: unixSeconds(spec.openedAt),
    updated_at: unixSeconds(spec.closedAt ?? new Date(spec.openedAt.getTime() + 5 * MINUTE_MS)),
    closed_at: spec.closedAt === null ? null : unixSeconds(spec.closedAt),
    business_date: businessDate,
    female_cover: guests - male - child,
    male_cover: male,
    child_cover: child,
    note: i % 6 === 3 ? 'Birthday: bring a candle with dessert' : i % 10 === 5 ? 'Allergic to nuts' : '',
    sequence: 0,
    sequential_id: 0,
    status: open ? 'open' : 'closed',
    // Only "delivered" is documented; "on_the_way" and "none" (dine-in) are the sandbox's guesses.
    delivery_status: delivery ? (open ? 'on_the_way' : 'delivered') : 'none',
    property_id: ctx.propertyId,
    revenue_center: { id: revenueCenter.id, name: revenueCenter.name },
    shift_id: catalog.shifts[dayOffset + SHIFT_TODAY] ?? catalog.shifts[SHIFT_TODAY],
    employee: ctx.servers[(i * 5) % ctx.servers.length],
    table: table ? { id: table.id, name: table.name } : null,
    sales_channel: delivery ? catalog.salesChannels.delivery : catalog.salesChannels.dineIn,
    customer,
    delivery: delivery ? {
      address: seed.deliveryAddresses[i % seed.deliveryAddresses.length],
      address_id: random.uuid(),
      recipient: customer ? `${customer.first_name} ${customer.last_name}` : 'Guest',
      payment_names: payments.length > 0 ? [catalog.paymentTypes.card.name] : [catalog.paymentTypes.cash.name],
    } : null,
    extras: delivery ? { platform: 'in-house', courier: 'Kerem' } : { origin: walkIn ? 'bar_ipad' : 'handheld' },
    check_service_charge: serviceCharge(totals, businessDate, random, catalog),
    summary: checkSummary(totals, paid),
    check_discounts: discount && totals.discounts > 0 ? [{
      id: random.uuid(), business_date: businessDate, source: 'system', value: formatMoney(discount.cents),
      discount_amount: formatMoney(totals.discounts), discount_id: discount.id, name: discount.name, type: 'amount', annotation: '',
    }] : [],
    check_payments: payments,
    check_items: lines.map((line) => checkItem(line, businessDate, open, random, catalog)),
    check_offers: offer && totals.offers > 0
      ? [{ id: random.uuid(), offer_id: offer.id, name: offer.name, value: formatMoney(totals.offers) }] : [],
  };
}

/** catalog.shifts holds one shift a day from PAST_DAYS before today; this index is today's. */
const SHIFT_TODAY = 7;

interface PickedLine {
  menuItem: MenuItem;
  quantity: number;
  complimentary: boolean;
  notes: string[];
  priceCents: number;
}

function pickLines(i: number, bar: boolean, delivery: boolean, random: Random, catalog: PosCatalog): PickedLine[] {
  const pool = catalog.menu.filter((m) => (bar ? m.course === 'drink' || m.priceCents < 1300 : delivery ? m.course === 'food' : true));
  const count = i === 0 ? 6 : random.int(1, 6);
  return Array.from({ length: count }, (_, n) => {
    const menuItem = random.pick(pool);
    const noted = menuItem.course === 'food' && random.next() < 0.2;
    return {
      menuItem,
      quantity: random.int(1, menuItem.course === 'drink' ? 3 : 2),
      // The last dish given away for a kitchen delay, on every ninth check with more than one line.
      complimentary: i % 9 === 4 && count > 1 && n === count - 1,
      notes: noted ? [random.pick(FOOD_NOTES)] : [],
      priceCents: menuItem.priceCents,
    };
  });
}

function checkItem(line: PickedLine, businessDate: string, open: boolean, random: Random, catalog: PosCatalog): CheckItem {
  return {
    id: random.uuid(),
    parent_check_item_id: null,
    reason_id: line.complimentary ? catalog.complimentaryReason.id : null,
    business_date: businessDate,
    status: 'ordered',
    // Only "paid" is documented; "unpaid" on open checks is the sandbox's guess.
    payment_status: open ? 'unpaid' : 'paid',
    complimentary: line.complimentary,
    unit_type: 'piece',
    quantity: String(line.quantity),
    notes: line.notes,
    is_combo: false,
    summary: lineSummary(line, catalog.tax.rate),
    tax: catalog.tax,
    item: { id: line.menuItem.id, name: line.menuItem.name, type: 'product', source_id: line.menuItem.sku },
  };
}

/** Closed checks are paid in full (every third split card + cash); every fourth open one is half paid (a deposit, or the first round). */
function buildPayments(i: number, open: boolean, total: number, businessDate: string, bar: boolean, random: Random, catalog: PosCatalog): CheckPayment[] {
  const device = bar ? catalog.devices[1] : catalog.devices[i % 2 === 0 ? 0 : 2];
  const pay = (cents: number, card: boolean): CheckPayment => ({
    id: random.uuid(),
    business_date: businessDate,
    payment_type_id: (card ? catalog.paymentTypes.card : catalog.paymentTypes.cash).id,
    paid_amount: formatMoney(cents),
    device,
    extras: card
      ? { card_brand: CARD_BRANDS[i % CARD_BRANDS.length], last4: String(random.int(0, 9999)).padStart(4, '0') }
      : { tendered: formatMoney(Math.ceil(cents / 1000) * 1000) },
  });
  if (total === 0) return [];
  if (open) return i % 4 === 0 ? [pay(Math.floor(total / 2), true)] : [];
  if (i % 3 === 1) {
    const half = Math.round(total / 2);
    return [pay(half, true), pay(total - half, false)];
  }
  return [pay(total, i % 2 === 0)];
}

function serviceCharge(totals: CheckTotals, businessDate: string, random: Random, catalog: PosCatalog): Check['check_service_charge'] {
  if (totals.serviceCharge === 0) return null;
  const tax = taxPortion(totals.serviceCharge, catalog.tax.rate);
  return {
    id: random.uuid(),
    service_charge_id: catalog.serviceChargeId,
    business_date: businessDate,
    amount: formatMoney(totals.serviceCharge),
    tax_amount: formatMoney(tax),
    net_amount: formatMoney(totals.serviceCharge - tax),
    tax: catalog.tax,
  };
}

/**
 * sequential_id counts checks by opening time (closed ones first, so the
 * numbers do not shift with the hour of `now`); sequence restarts every business date.
 */
export function numberChecks(checks: Check[]): void {
  const perDay = new Map<string, number>();
  const order = (c: Check): number => (c.status === 'open' ? 1 : 0);
  [...checks].sort((a, b) => order(a) - order(b) || a.created_at - b.created_at).forEach((check, rank) => {
    const sequence = (perDay.get(check.business_date) ?? 0) + 1;
    perDay.set(check.business_date, sequence);
    check.sequence = sequence;
    check.sequential_id = 1001 + rank;
    check.alias = `#${check.sequential_id}`;
  });
}
