import { injectTraceHeaders, isTracingOn, traceUpstreamCall } from '../observability/tracing';
import type { ServiceName } from './serviceName';
import type { SendLayer } from './transport';

/**
 * One client span per attempt, its `traceparent` sent on the call. Composed innermost, onto the transport itself, so
 * each retry is a span of its own. When tracing is off the call passes untouched: no span, and no copy of its headers
 * (which may be shared by every call of the request, so are copied before a `traceparent` is added).
 */
export function tracedSend(service: ServiceName): SendLayer {
  return (next) => (req, wire) => {
    if (!isTracingOn()) return next(req, wire);
    return traceUpstreamCall(service, req, () => {
      const headers = { ...req.headers };
      injectTraceHeaders(headers);
      return next({ ...req, headers }, wire);
    });
  };
}
