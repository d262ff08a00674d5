import { Pool } from 'undici';
import { SANDBOX_CREDENTIALS, type SandboxState } from '../src/sandbox';
import { requestBody } from './operations';
import { scenarioRequest } from './scenarios';
import { mulberry32 } from '../src/sandbox/random';

/** The traffic of `npm run bench:faults`: what operators see on a normal day, mixed. */
export type OperationKind = 'dayList' | 'check' | 'employees' | 'booking';

/** Share of each kind in the mix (the weights add up to 1). */
export const MIX: Record<OperationKind, number> = { dayList: 0.25, check: 0.4, employees: 0.2, booking: 0.15 };

const STAFF = 'query BenchStaff { employees(perPage: 50) { nodes { id firstName lastName } pageInfo { totalCount } } }';

/** One answer: how long it took, whether it carried errors, and of its upstream-dependent fields how many came. */
export interface Sample {
  kind: OperationKind;
  /** ms after the load began. */
  at: number;
  latencyMs: number;
  status: number;
  withErrors: boolean;
  /** The root field: served when not null. */
  rootServed: boolean;
  /** Checks inside a day list: asked (the reservations with a check) and served (not null). */
  checksAsked: number;
  checksServed: number;
}

export interface Traffic {
  /** The POST body of a request of `kind`, drawing its variables with `random`. */
  body(kind: OperationKind, random: () => number): string;
  /** The reservations of the busy day that have a check (from a fault-free answer). */
  reservationsWithCheck: Set<string>;
}

interface DayAnswer {
  reservations?: { nodes?: Array<{ id: string; check: unknown }> } | null;
}

/** Learns, with no fault injected, which reservations of the busy day carry a check and which check ids exist. */
export async function learnTraffic(gatewayUrl: string, state: SandboxState): Promise<Traffic> {
  const day = scenarioRequest('S2', state);
  const res = await fetch(`${gatewayUrl}/graphql`, { method: 'POST', headers: day.headers, body: day.body });
  const answer = (await res.json()) as { data?: DayAnswer; errors?: unknown[] };
  if (answer.errors) throw new Error(`the fault-free day list answered errors: ${JSON.stringify(answer.errors).slice(0, 300)}`);
  const nodes = answer.data?.reservations?.nodes ?? [];
  const withCheck = nodes.filter((n) => n.check !== null);
  const checkIds = [...new Set(withCheck.map((n) => (n.check as { id: string }).id))];
  const booking = scenarioRequest('S3', state).body;
  return {
    reservationsWithCheck: new Set(withCheck.map((n) => n.id)),
    body(kind, random) {
      if (kind === 'dayList') return day.body;
      if (kind === 'booking') return booking;
      if (kind === 'employees') return JSON.stringify({ operationName: 'BenchStaff', query: STAFF });
      return requestBody('S1', { id: checkIds[Math.floor(random() * checkIds.length)] });
    },
  };
}

export interface LoadOptions {
  gatewayUrl: string;
  clients: number;
  durationMs: number;
  traffic: Traffic;
  seed: number;
}

/** `clients` loops, each sending one request after the other for `durationMs`, the kind drawn from MIX. */
export async function runLoad(options: LoadOptions): Promise<Sample[]> {
  const pool = new Pool(options.gatewayUrl, { connections: options.clients });
  const headers = { 'content-type': 'application/json', ...SANDBOX_CREDENTIALS.laTerrazza };
  const samples: Sample[] = [];
  const started = performance.now();
  const client = async (index: number) => {
    // The same seed draws the same mix of operations on every run.
    const random = mulberry32(options.seed * 1000 + index);
    while (performance.now() - started < options.durationMs) {
      const kind = pick(random());
      const sent = performance.now();
      const res = await pool.request({ method: 'POST', path: '/graphql', headers, body: options.traffic.body(kind, random) });
      const text = await res.body.text();
      const latencyMs = performance.now() - sent;
      samples.push({ kind, at: sent - started, latencyMs, status: res.statusCode, ...judge(kind, text, options.traffic) });
    }
  };
  await Promise.all(Array.from({ length: options.clients }, (_v, i) => client(i)));
  await pool.close();
  return samples;
}

function judge(kind: OperationKind, text: string, traffic: Traffic): Pick<Sample, 'withErrors' | 'rootServed' | 'checksAsked' | 'checksServed'> {
  let body: { data?: Record<string, unknown> | null; errors?: unknown[] };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    return { withErrors: true, rootServed: false, checksAsked: 0, checksServed: 0 };
  }
  const root = { dayList: 'reservations', check: 'check', employees: 'employees', booking: 'createReservation' }[kind];
  const value = body.data?.[root];
  const result = { withErrors: (body.errors?.length ?? 0) > 0, rootServed: value !== null && value !== undefined, checksAsked: 0, checksServed: 0 };
  if (kind === 'dayList') {
    // A list that did not arrive asked for its checks all the same: they count as not served.
    const nodes = (value as DayAnswer['reservations'])?.nodes;
    result.checksAsked = traffic.reservationsWithCheck.size;
    result.checksServed = (nodes ?? []).filter((n) => traffic.reservationsWithCheck.has(n.id) && n.check !== null).length;
  }
  return result;
}

function pick(draw: number): OperationKind {
  let sum = 0;
  for (const [kind, weight] of Object.entries(MIX) as Array<[OperationKind, number]>) {
    sum += weight;
    if (draw < sum) return kind;
  }
  return 'check';
}
