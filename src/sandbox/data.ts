import { createRandom } from './random';
import type { SandboxState, TenantState } from './records';
import { BISTRO_NORD } from './sample/bistroNord';
import { buildChecks } from './sample/checks';
import { LA_TERRAZZA } from './sample/laTerrazza';
import { buildCustomers, buildEmployees, fillAccountDetails } from './sample/people';
import { buildPosCatalog } from './sample/posCatalog';
import { BUSY_DAY_OFFSET, buildReservations } from './sample/reservations';
import type { VenueSeed } from './sample/venueSeed';
import { sampleIdsOf, type LaTerrazzaSample, type VenueSample } from './sample/wellKnown';
import { addDays, localDateOf } from './venueTime';

export type * from './records';
export type { LaTerrazzaSample, VenueSample };

export interface SampleStateOptions {
  /** The clock the sample is built around: checks of the last days, reservations of the next 14. Default: new Date(). */
  now?: Date;
}

/** Roles that open checks; the kitchen does not. */
const FRONT_OF_HOUSE = new Set(['Manager', 'Host', 'Waiter', 'Bartender']);

/**
 * The sample state: La Terrazza (rich) and Bistro Nord (small). Every id and
 * value comes from seeded streams, one per venue and kind, so only the dates
 * move with `now`.
 */
export function createSampleState(options: SampleStateOptions = {}): SandboxState {
  const now = options.now ?? new Date();
  return { now: now.toISOString(), tenants: { laTerrazza: buildVenue(LA_TERRAZZA, now), bistroNord: buildVenue(BISTRO_NORD, now) } };
}

function buildVenue(seed: VenueSeed, now: Date): TenantState {
  const stream = (kind: string) => createRandom(`${seed.key}:${kind}`);
  const ids = stream('venue');
  const [storeId, propertyId, enterpriseId] = [ids.uuid(), ids.uuid(), ids.uuid()];
  const revenueCenters = seed.revenueCenters.map((rc) => ({ id: ids.uuid(), name: rc.name }));
  const tables = seed.revenueCenters.flatMap((rc, i) =>
    rc.tables.map((t) => ({ id: ids.uuid(), name: t.name, revenue_center_id: revenueCenters[i]!.id, capacity: t.capacity })));
  const staff = buildEmployees(seed, stream('employees'), propertyId, now);
  const { customers, profiles } = buildCustomers(seed, stream('customers'), enterpriseId, now);
  const checks = buildChecks({
    seed, random: stream('checks'), now, propertyId, revenueCenters, tables, customers,
    servers: staff.filter((s) => FRONT_OF_HOUSE.has(s.role)).map((s) => s.employee),
    catalog: buildPosCatalog(seed, stream('catalog')),
  });
  fillAccountDetails(customers, checks);
  const venue = { store_id: storeId, slug: seed.slug };
  const { reservations, paymentRequests } = buildReservations({
    seed, random: stream('reservations'), now, venue, revenueCenters, tables, customers: profiles, checks,
  });
  return {
    key: seed.key,
    name: seed.name,
    slug: seed.slug,
    store_id: storeId,
    property_id: propertyId,
    enterprise_id: enterpriseId,
    payment_link_enabled: seed.paymentLinkEnabled,
    revenue_centers: revenueCenters,
    tables,
    employees: staff.map((s) => s.employee),
    customers: byId(customers),
    reservation_customers: byId(profiles),
    checks: byId(checks),
    reservations: byId(reservations),
    payment_requests: byId(paymentRequests),
    off_days: [],
  };
}

function byId<T extends { id: string }>(items: readonly T[]): Map<string, T> {
  return new Map(items.map((item) => [item.id, item]));
}

/** Any fixed instant: the ids do not depend on it. */
const ID_REFERENCE_NOW = new Date('2026-01-15T09:00:00Z');
const ids = sampleIdsOf(createSampleState({ now: ID_REFERENCE_NOW }));

/**
 * Well-known values of the sample data, for tests and the README. Ids are
 * constants (the same for every `now`); dates depend on the state's `now`,
 * so they are functions of the state:
 *
 * ```ts
 * const sandbox = await startSandbox();
 * SAMPLE.laTerrazza.openCheckId;             // a UUID, same on every start
 * SAMPLE.laTerrazza.busyDate(sandbox.state); // e.g. '2026-11-22'
 * ```
 */
export const SAMPLE = {
  laTerrazza: {
    ...ids.laTerrazza,
    /** The date (YYYY-MM-DD, venue time) with exactly 50 reservations over exactly 30 distinct checks: today + 1. */
    busyDate: (state: SandboxState): string => addDays(SAMPLE.today(state), BUSY_DAY_OFFSET),
    busyDateReservationCount: 50,
    busyDateDistinctCheckCount: 30,
  },
  bistroNord: ids.bistroNord,
  /** The venue-local date of the state's `now`, the first of the 14 days with reservations. */
  today: (state: SandboxState): string => localDateOf(new Date(state.now)),
  /** A well-formed UUID that names nothing in either service. */
  unknownId: '00000000-0000-4000-8000-000000000000',
} as const;
