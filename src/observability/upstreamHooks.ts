import type { Logger } from '../logger';
import type { UpstreamEvents } from '../upstreams/events';
import type { GatewayMetrics } from './metrics';

/**
 * Every upstream call counted, and one line per failed call with its request's id: a 4xx (the client's business) at
 * info, what broke (5xx, timeouts, refused connections, broken answers) at warn. Never headers or bodies.
 */
export function observabilityHooks(metrics: GatewayMetrics, logger: Logger): Required<Pick<UpstreamEvents, 'onCall' | 'onCircuitStateChange'>> {
  return {
    onCall(record) {
      metrics.observeUpstreamCall(record);
      const error = record.error;
      if (!error) return;
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
      if (error.failure === 'status' && error.status !== undefined && error.status < 500) logger.info(fields, 'upstream call failed');
      else logger.warn(fields, 'upstream call failed');
    },
    onCircuitStateChange: (service, state) => metrics.setCircuitState(service, state),
  };
}
