import type { ServiceName } from '../errors';
import type { Logger } from '../logger';
import type { UpstreamCallRecord } from '../upstreams/http';
import type { CircuitStateName, GatewayMetrics } from './metrics';

/** What the transports tell the gateway's metrics and log (the shape of the transport's listener options). */
export interface ObservabilityHooks {
  /** Every upstream call: counted, timed, and logged on one line when it failed. */
  onCall(record: UpstreamCallRecord): void;
  /** Every circuit breaker state change: the `tablegraph_upstream_circuit_state` gauge. */
  onCircuitStateChange(service: ServiceName, state: CircuitStateName): void;
}

export function observabilityHooks(metrics: GatewayMetrics, logger: Logger): ObservabilityHooks {
  return {
    onCall(record) {
      metrics.observeUpstreamCall(record);
      if (record.error) logUpstreamFailure(logger, record);
    },
    onCircuitStateChange: (service, state) => metrics.setCircuitState(service, state),
  };
}

/**
 * One line per failed upstream call, with the id of the GraphQL request that made it. What the service refused
 * (4xx) is the client's business and logged at info; what broke (5xx, timeouts, refused connections, answers that
 * break the contract) is logged at warn. Headers and bodies are never logged, so no credential can appear.
 */
function logUpstreamFailure(logger: Logger, record: UpstreamCallRecord): void {
  const error = record.error!;
  const clientSide = error.failure === 'status' && error.status !== undefined && error.status < 500;
  const fields = {
    requestId: record.requestId,
    upstream: record.service,
    method: record.method,
    route: record.route,
    status: record.status ?? null,
    failure: error.failure,
    upstreamCode: error.upstreamCode,
    detail: error.detail,
    durationMs: Math.round(record.durationMs * 10) / 10,
  };
  if (clientSide) logger.info(fields, 'upstream call failed');
  else logger.warn(fields, 'upstream call failed');
}

/**
 * Listener sets that each get every event: where both sets listen to the same event, both are called, `a` first.
 * For composing these hooks with others (the transports' logging hooks) rather than letting one replace the other.
 */
export function combineHooks<A extends object, B extends object>(a: A, b: B): A & B {
  const combined: Record<string, unknown> = Object.assign({}, a, b);
  for (const [key, first] of Object.entries(a)) {
    const second: unknown = Reflect.get(b, key);
    if (typeof first === 'function' && typeof second === 'function') {
      combined[key] = (...args: unknown[]) => {
        first(...args);
        second(...args);
      };
    }
  }
  return combined as A & B;
}
