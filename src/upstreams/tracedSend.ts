import { injectTraceHeaders, traceUpstreamCall } from '../observability/tracing';
import type { ServiceName } from './serviceName';
import type { SendLayer } from './transport';

/**
 * One client span per attempt, its `traceparent` sent on the call (nothing is added when tracing is off). Composed
 * innermost, onto the transport itself, so each retry is a span of its own.
 */
export function tracedSend(service: ServiceName): SendLayer {
  return (next) => (req, wire) =>
    traceUpstreamCall(service, req, () => {
      const headers = { ...req.headers };
      injectTraceHeaders(headers);
      return next({ ...req, headers }, wire);
    });
}
