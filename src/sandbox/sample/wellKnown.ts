import type { Check, SandboxState, TenantState } from '../records';

/** Ids a test or the docs can name in one venue. */
export interface VenueSample {
  storeId: string;
  propertyId: string;
  slug: string;
  /** In the venue's order: Main Dining, Terrace, Bar (La Terrazza); Salle (Bistro Nord). */
  revenueCenterIds: string[];
  /** Every table, grouped by revenue center in the order above. */
  tableIds: string[];
  employeeCount: number;
  /** The venue's first customer (Marco Bianchi at La Terrazza, Amélie Rousseau at Bistro Nord). */
  customerId: string;
  /** An open check with a customer and a table (at La Terrazza also a discount, an offer, a service charge and a partial payment). */
  openCheckId: string;
  /** A closed check with a customer, paid in full. */
  closedCheckId: string;
  /** A reservation whose `check.id` is openCheckId. */
  reservationWithCheckId: string;
  /** A reservation with `check: null` and `reservation_payment: null`. */
  reservationWithoutCheckId: string;
  /** The reservation that carries paymentRequestId as its `reservation_payment`. */
  reservationWithPaymentId: string;
  /** An active payment request PATCH /v1/reservation-payments can update (answers 832 at Bistro Nord). */
  paymentRequestId: string;
}

export interface LaTerrazzaSample extends VenueSample {
  /** A closed delivery check: `delivery_status: "delivered"`, a delivery object, `table: null`. */
  deliveryCheckId: string;
  /** A bar check of a guest who gave no name: `customer: null`, no service charge. */
  walkInCheckId: string;
}

/** Reads the well-known ids out of a sample state; they are the same for every `now`. */
export function sampleIdsOf(state: SandboxState): { laTerrazza: LaTerrazzaSample; bistroNord: VenueSample } {
  const lt = state.tenants.laTerrazza;
  const checks = [...lt.checks.values()];
  return {
    laTerrazza: {
      ...venueSample(lt, (c) => c.check_discounts.length > 0 && c.check_offers.length > 0 && c.check_payments.length > 0 && c.check_service_charge !== null),
      deliveryCheckId: find(checks, (c) => c.delivery !== null && c.status === 'closed', 'a closed delivery check').id,
      walkInCheckId: find(checks, (c) => c.customer === null, 'a walk-in check').id,
    },
    bistroNord: venueSample(state.tenants.bistroNord, () => true),
  };
}

function venueSample(tenant: TenantState, richOpenCheck: (check: Check) => boolean): VenueSample {
  const checks = [...tenant.checks.values()];
  const reservations = [...tenant.reservations.values()];
  const open = find(checks, (c) => c.status === 'open' && c.customer !== null && c.table !== null && richOpenCheck(c), 'an open check');
  const payment = find([...tenant.payment_requests.values()], () => true, 'a payment request');
  return {
    storeId: tenant.store_id,
    propertyId: tenant.property_id,
    slug: tenant.slug,
    revenueCenterIds: tenant.revenue_centers.map((rc) => rc.id),
    tableIds: tenant.tables.map((t) => t.id),
    employeeCount: tenant.employees.length,
    customerId: find([...tenant.customers.values()], () => true, 'a customer').id,
    openCheckId: open.id,
    closedCheckId: find(checks, (c) => c.status === 'closed' && c.customer !== null && c.check_payments.length > 0, 'a closed check').id,
    reservationWithCheckId: find(reservations, (r) => r.check?.id === open.id, 'a reservation with the open check').id,
    reservationWithoutCheckId: find(reservations, (r) => r.check === null && r.reservation_payment === null, 'a reservation without check').id,
    reservationWithPaymentId: payment.reservation_id,
    paymentRequestId: payment.id,
  };
}

/** A sample that lost what SAMPLE promises fails loudly at import, not in some test far away. */
function find<T>(items: readonly T[], predicate: (item: T) => boolean, what: string): T {
  const found = items.find(predicate);
  if (found === undefined) throw new Error(`Sandbox sample data: expected ${what}, found none`);
  return found;
}
