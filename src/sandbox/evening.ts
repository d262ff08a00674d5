import { formatMoney } from './money';
import { createRandom } from './random';
import type { Check, CheckPayment, ReservationRecord, SandboxState, TenantState } from './records';
import { localDateOf, unixSeconds } from './venueTime';

/** How often the state catches up with the clock: slots are on a five-minute grid, so a minute is fine enough. */
const STEP_MS = 60_000;
const BOOKED: ReadonlySet<string> = new Set(['init', 'confirmed']);
const AT_TABLE: ReadonlySet<string> = new Set(['seated', 'walk_in']);

/**
 * The evening going by, for `npm run dev`: a live view of today shows guests arriving and leaving and their checks
 * paid. Today's booked parties are seated once their time comes; parties whose stay is over leave (`completed`),
 * and their open check is paid in full and closed. The state is built around the start's `now` and only moves
 * forward from there. Returns what the services call before each request; it does the work at most once a minute.
 */
export function eveningClock(state: SandboxState, clock: () => Date): () => void {
  let next = 0;
  return () => {
    const now = clock();
    if (now.getTime() < next) return;
    next = now.getTime() + STEP_MS;
    for (const tenant of Object.values(state.tenants)) advance(tenant, now);
  };
}

function advance(tenant: TenantState, now: Date): void {
  const today = localDateOf(now);
  for (const reservation of tenant.reservations.values()) {
    // The service writes dates with the venue's offset: their first ten characters are the venue-local date.
    if (reservation.is_draft || reservation.date.slice(0, 10) !== today) continue;
    const start = Date.parse(reservation.date);
    const end = Date.parse(reservation.estimated_discharged_at);
    const booked = BOOKED.has(reservation.status);
    if (booked && start <= now.getTime() && now.getTime() < end) arrive(reservation);
    else if ((booked || AT_TABLE.has(reservation.status)) && end <= now.getTime()) leave(tenant, reservation);
  }
}

function arrive(reservation: ReservationRecord): void {
  reservation.status = 'seated';
  reservation.occupied_seat_count = reservation.guest_count;
  reservation.assigned_at ??= reservation.date;
}

function leave(tenant: TenantState, reservation: ReservationRecord): void {
  reservation.status = 'completed';
  reservation.occupied_seat_count = reservation.guest_count;
  reservation.discharged_at = reservation.estimated_discharged_at;
  const check = reservation.check ? tenant.checks.get(reservation.check.id) : undefined;
  if (!check || check.closed_at !== null) return;
  pay(tenant, check, new Date(reservation.estimated_discharged_at));
  if (reservation.check) reservation.check.status = check.status;
}

/** The check's unpaid amount paid by card on the terminal the venue's other payments use, and the check closed. */
function pay(tenant: TenantState, check: Check, at: Date): void {
  const unpaid = cents(check.summary.unpaid_amount);
  const like = paymentLike(tenant);
  if (unpaid > 0 && like) {
    const payment: CheckPayment = {
      id: createRandom(`${check.id}:paid`).uuid(),
      business_date: check.business_date,
      payment_type_id: like.payment_type_id,
      paid_amount: formatMoney(unpaid),
      device: like.device,
      extras: {},
    };
    check.check_payments.push(payment);
    check.summary.paid_amount = formatMoney(cents(check.summary.paid_amount) + unpaid);
    check.summary.unpaid_amount = formatMoney(0);
  }
  check.status = 'closed';
  check.closed_at = unixSeconds(at);
  check.updated_at = check.closed_at;
}

function paymentLike(tenant: TenantState): CheckPayment | undefined {
  for (const check of tenant.checks.values()) if (check.check_payments[0]) return check.check_payments[0];
  return undefined;
}

function cents(money: string): number {
  return Math.round(Number(money) * 100);
}
