import { SAMPLE, SANDBOX_CREDENTIALS, type SandboxState } from '../src/sandbox';
import { addDays } from '../src/sandbox/venueTime';
import { requestBody, type ScenarioName } from './operations';
import { connectionCredential } from './upstreams';

/** What autocannon (and the equality check) sends for one scenario: the same request to the gateway and the baseline. */
export interface ScenarioRequest {
  method: 'POST';
  path: '/graphql';
  headers: Record<string, string>;
  body: string;
}

/** The clock of the benchmark's sample data: today's midnight UTC, so a day's runs serve the very same records. */
export function benchNow(today = new Date()): Date {
  return new Date(`${today.toISOString().slice(0, 10)}T00:00:00Z`);
}

/**
 * S1: the richest open check (items, discounts, payments, an offer, a service charge, customer and employee).
 * S1id: the same by its trusted-document id. S2: the busy day, 50 reservations over 30 distinct checks. S3: a booking a week ahead.
 */
export function scenarioRequest(scenario: ScenarioName, state: SandboxState): ScenarioRequest {
  const venue = SAMPLE.laTerrazza;
  const variables: Record<ScenarioName, Record<string, unknown>> = {
    S1: { id: venue.openCheckId },
    S1id: { id: venue.openCheckId },
    S1d: { id: venue.openCheckId },
    S2: { date: venue.busyDate(state) },
    S2d: { date: venue.busyDate(state) },
    S3: {
      input: {
        revenueCenterId: venue.revenueCenterIds[0],
        date: `${addDays(SAMPLE.today(state), 7)}T19:30`,
        guestCount: 4,
        customer: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.test' },
      },
    },
  };
  return {
    method: 'POST',
    path: '/graphql',
    headers: { 'content-type': 'application/json', ...SANDBOX_CREDENTIALS.laTerrazza },
    body: requestBody(scenario, variables[scenario]),
  };
}

/** S0, `{ __typename }`: no upstream call, no field, so only each server's fixed cost per request. */
export const FLOOR_REQUEST: ScenarioRequest = { method: 'POST', path: '/graphql', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ __typename }' }) };

/** The scenarios where each connection sends credentials of its own, so no in-flight join or kept answer applies. */
export const OWN_CREDENTIALS: ReadonlySet<ScenarioName> = new Set(['S1d', 'S2d']);

/** What the ledger and `bench:side` load, one scenario at a time (their `…_SCENARIO` setting). */
const SINGLE_SCENARIOS = ['S0', 'S1', 'S1d', 'S2d'] as const;

/** The request of `name` (from the setting `variable`) and whether each connection sends its own credentials. */
export function singleScenario(name: string, variable: string, state: SandboxState): { request: ScenarioRequest; own: boolean } {
  const known = SINGLE_SCENARIOS.find((s) => s === name);
  if (!known) throw new Error(`${variable} is one of ${SINGLE_SCENARIOS.join(', ')}, not ${name}`);
  if (known === 'S0') return { request: FLOOR_REQUEST, own: false };
  return { request: scenarioRequest(known, state), own: OWN_CREDENTIALS.has(known) };
}

/** The credential headers S1d and S2d send on connection `n` (La Terrazza's, made this connection's own). */
export function connectionHeaders(request: ScenarioRequest, n: number): Record<string, string> {
  const headers = { ...request.headers };
  for (const name of ['Pos-Access-Token', 'Reservation-Access-Token']) {
    if (headers[name] !== undefined) headers[name] = connectionCredential(headers[name], n);
  }
  return headers;
}
