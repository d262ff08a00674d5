import type { UpstreamError, ServiceName } from '../errors/UpstreamError';
import type { CircuitStateName } from './circuitBreaker';
import type { ReadSource } from './sharedReads';
import type { HttpMethod } from './transport';

/** What one upstream call did, for the per-request log and metrics. */
export interface UpstreamCallRecord {
  service: ServiceName;
  method: HttpMethod;
  route: string;
  status?: number;
  durationMs: number;
  error?: UpstreamError;
  /** The GraphQL request that made the call (its `x-request-id`). */
  requestId?: string;
  /** Whether the request was written to a connection (WireMark); never for a joined or kept read. */
  sent?: boolean;
  /** `upstream`: this request's own attempt; `joined` (another request's GET) and `cache` reads are no calls. */
  source: ReadSource;
  /** A kept answer's age, ms, when `source` is `cache`. */
  ageMs?: number;
}

/** The upstream calls among a request's records: what its budgets are charged (joined and kept reads are not calls). */
export function upstreamCallCount(records: readonly UpstreamCallRecord[]): number {
  return records.filter((record) => record.source === 'upstream').length;
}

/** The `Age` of a response, whole seconds: the oldest kept answer among its records; undefined when it used none. */
export function oldestCachedAgeSeconds(records: readonly UpstreamCallRecord[]): number | undefined {
  const ages = records.flatMap((record) => (record.source === 'cache' && record.ageMs !== undefined ? [record.ageMs] : []));
  return ages.length === 0 ? undefined : Math.floor(Math.max(...ages) / 1000);
}

/** What the upstream transports and their policies report, whichever request made them work. */
export interface UpstreamEvents {
  /** Every call (each retry is one): counted, timed, and logged on one line when it failed. */
  onCall?: (record: UpstreamCallRecord) => void;
  /** Every circuit breaker state change: the log line and the `tablegraph_upstream_circuit_state` gauge. */
  onCircuitStateChange?: (service: ServiceName, state: CircuitStateName) => void;
  onRetry?: (service: ServiceName, attempt: number, delayMs: number, error: UpstreamError) => void;
}

/** Both sets of listeners, `a` first where both listen to the same event. */
export function combineEvents(a: UpstreamEvents, b: UpstreamEvents): UpstreamEvents {
  return {
    onCall: both(a.onCall, b.onCall),
    onCircuitStateChange: both(a.onCircuitStateChange, b.onCircuitStateChange),
    onRetry: both(a.onRetry, b.onRetry),
  };
}

function both<A extends unknown[]>(first?: (...args: A) => void, second?: (...args: A) => void): ((...args: A) => void) | undefined {
  if (!first || !second) return first ?? second;
  return (...args) => {
    first(...args);
    second(...args);
  };
}
