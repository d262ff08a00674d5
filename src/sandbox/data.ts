import { createRandom } from './random';
import type { SandboxState, TenantState } from './records';
import { BISTRO_NORD } from './sample/bistroNord';
import { LA_TERRAZZA } from './sample/laTerrazza';
import { buildCustomers, buildEmployees, fillAccountDetails } from './sample/people';
import { buildPosCatalog } from './sample/posCatalog';
import { buildScheduleRecords } from './sample/reservations';
import { busyDateOf, holidayDateOf, planVenue } from './sample/schedule';
import type { VenueSeed } from './sample/venueSeed';
import { sampleIdsOf, type LaTerrazzaSample, type VenueSample } from './sample/wellKnown';
import { localDateOf } from './venueTime';

export type * from './records';
export type { LaTerrazzaSample, VenueSample };

export interface SampleStateOptions {
  /** The clock the sample is built around: the week before today and the two weeks from today. Default: new Date(). */
  now?: Date;
}

/** Roles that open checks; the kitchen does not. */
const FRONT_OF_HOUSE = new Set(['Manager', 'Host', 'Waiter', 'Bartender']);

/**
 * The sample state: La Terrazza (rich) and Bistro Nord (small), the week before `now` and the two weeks after it.
 * Every id and value comes from seeded streams, one per venue and kind and one per party of the schedule, so the same
 * `now` gives the same state, and the records SAMPLE names are the same ones for any `now`.
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
    rc.tables.map((t) => ({ id: ids.uuid(), name: t.name, revenue_center_id: revenueCenters[i].id, capacity: t.capacity })));
  const staff = buildEmployees(seed, stream('employees'), propertyId, now);
  const { customers, profiles } = buildCustomers(seed, stream('customers'), enterpriseId, now);
  const plan = planVenue(seed, tables, revenueCenters.map((rc) => rc.id), now);
  const venue = { store_id: storeId, slug: seed.slug, name: seed.name, bookers: seed.bookers };
  const { checks, reservations, paymentRequests, offDays } = buildScheduleRecords(plan, {
    checks: {
      seed, today: localDateOf(now), propertyId, revenueCenters,
      servers: staff.filter((s) => FRONT_OF_HOUSE.has(s.role)).map((s) => s.employee),
      catalog: buildPosCatalog(seed, stream('catalog')),
    },
    venue, customers, profiles, revenueCenterIds: revenueCenters.map((rc) => rc.id),
  });
  fillAccountDetails(customers, checks);
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
    off_days: offDays,
  };
}

function byId<T extends { id: string }>(items: readonly T[]): Map<string, T> {
  return new Map(items.map((item) => [item.id, item]));
}

/** Any fixed instant: the ids do not depend on it. */
const ID_REFERENCE_NOW = new Date('2026-01-15T09:00:00Z');
const ids = sampleIdsOf(createSampleState({ now: ID_REFERENCE_NOW }));

/**
 * Well-known values of the sample data, for tests and the docs. Ids are
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
    /**
     * The busy Saturday (YYYY-MM-DD, venue time), the first Saturday after today: exactly 50 reservations over exactly
     * 30 distinct checks (hotel guests' tabs and pre-orders, all still open).
     */
    busyDate: (state: SandboxState): string => busyDateOf(SAMPLE.today(state)),
    /** The holiday the venue is closed (an off day; its bookings were cancelled): two days after the busy Saturday. */
    holidayDate: (state: SandboxState): string => holidayDateOf(SAMPLE.today(state)),
    busyDateReservationCount: 50,
    busyDateDistinctCheckCount: 30,
  },
  bistroNord: ids.bistroNord,
  /** The venue-local date of the state's `now`. */
  today: (state: SandboxState): string => localDateOf(new Date(state.now)),
  /** A well-formed UUID that names nothing in either service. */
  unknownId: '00000000-0000-4000-8000-000000000000',
} as const;
