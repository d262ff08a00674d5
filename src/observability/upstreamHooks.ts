import type { Logger } from '../logger';
import type { UpstreamCallRecord, UpstreamEvents } from '../upstreams/events';
import type { GatewayMetrics } from './metrics';

/** The events the metrics and the log listen to. */
export type ObservabilityHooks = Required<Pick<UpstreamEvents, 'onCall' | 'onCircuitStateChange'>>;

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
