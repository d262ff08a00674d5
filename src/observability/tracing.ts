import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, context, isSpanContextValid, propagation, trace, type Attributes, type SpanContext } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-node';
import { codeOf } from '../errors/errorFields';
import type { ServiceName } from '../errors/UpstreamError';
import type { SendLayer } from '../upstreams/transport';
import type { OperationOutcome } from './operationOutcome';

/*
 * Attribute names of the OpenTelemetry semantic conventions, spelled here rather than imported: the SDK, the
 * exporter and the conventions package are loaded only when tracing is on (startTracing), so a replica that does not
 * trace does not load them. `url.template` is incubating, so copied anyway.
 */
const ATTR_ERROR_TYPE = 'error.type';
const ATTR_HTTP_REQUEST_METHOD = 'http.request.method';
const ATTR_HTTP_RESPONSE_STATUS_CODE = 'http.response.status_code';
const ATTR_HTTP_ROUTE = 'http.route';
const ATTR_SERVICE_INSTANCE_ID = 'service.instance.id';
const ATTR_SERVICE_NAME = 'service.name';
const ATTR_URL_TEMPLATE = 'url.template';
const ATTR_UPSTREAM_SERVICE = 'tablegraph.upstream.service';

/**
 * The gateway's tracer. A proxy: until a provider is registered (tracing off) every span is a non-recording no-op,
 * so the instrumentation below costs a few function calls per request and nothing is kept or sent.
 */
const tracer = trace.getTracer('tablegraph');

/** Whether startTracing registered a provider (and has not been shut down): then spans carry the trace context. */
let tracingOn = false;

export interface TracingOptions {
  /** OTLP/HTTP base address; spans go to `<endpoint>/v1/traces`. Tracing is off without it. */
  endpoint?: string;
  serviceName: string;
  /** Replaces the OTLP exporter (tests pass an in-memory one with a SimpleSpanProcessor). */
  spanProcessors?: SpanProcessor[];
}

export interface Tracing {
  /** Ends the export: flushes the spans still buffered. */
  shutdown(): Promise<void>;
}

/**
 * Registers the process-wide tracer provider: W3C trace context and baggage propagation, AsyncLocalStorage context,
 * batched OTLP/HTTP (JSON) export. Returns undefined, registering nothing, when there is nowhere to send spans.
 * The exporter still reads the standard OTEL_EXPORTER_OTLP_HEADERS / _TIMEOUT variables itself.
 */
export function startTracing(options: TracingOptions): Tracing | undefined {
  if (!options.endpoint && !options.spanProcessors) return undefined;
  const { BatchSpanProcessor, NodeTracerProvider } = require('@opentelemetry/sdk-trace-node') as typeof import('@opentelemetry/sdk-trace-node');
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
  const { defaultResource, resourceFromAttributes } = require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  const spanProcessors = options.spanProcessors ?? [
    new BatchSpanProcessor(new OTLPTraceExporter({ url: `${options.endpoint!.replace(/\/+$/, '')}/v1/traces` })),
  ];
  const provider = new NodeTracerProvider({
    resource: defaultResource().merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: options.serviceName, [ATTR_SERVICE_INSTANCE_ID]: hostname() })),
    spanProcessors,
  });
  provider.register();
  tracingOn = true;
  return {
    async shutdown() {
      tracingOn = false;
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}

/**
 * Runs one GraphQL HTTP request inside its server span, continuing the client's trace when it sent `traceparent`.
 * The span is named `graphql` here and renamed after its operation by the route (nameOperationSpan).
 */
export async function withOperationSpan<T>(request: { method: string; headers: Record<string, string | string[] | undefined> }, fn: () => Promise<T>): Promise<T> {
  if (!tracingOn) return fn(); // no span, no context to carry: nothing to pay per request
  const parent = propagation.extract(context.active(), request.headers);
  const attributes: Attributes = { [ATTR_HTTP_REQUEST_METHOD]: request.method, [ATTR_HTTP_ROUTE]: '/graphql' };
  const span = tracer.startSpan('graphql', { kind: SpanKind.SERVER, attributes }, parent);
  try {
    return await context.with(trace.setSpan(parent, span), fn);
  } catch (err) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: errorType(err) });
    throw err;
  } finally {
    span.end();
  }
}

/** Attribute names of the OpenTelemetry GraphQL conventions (still "incubating", so copied here as the project advises). */
const ATTR_GRAPHQL_OPERATION_NAME = 'graphql.operation.name';
const ATTR_GRAPHQL_OPERATION_TYPE = 'graphql.operation.type';

/** Names the request's span after what it ran (`query Day`, `graphql batch`); nothing without a recording span. */
export function nameOperationSpan(name: string, operation?: { type?: string; operationName: string | null }): void {
  const span = trace.getActiveSpan();
  if (!span?.isRecording()) return;
  span.updateName(name);
  if (operation?.type) span.setAttribute(ATTR_GRAPHQL_OPERATION_TYPE, operation.type);
  if (operation?.operationName) span.setAttribute(ATTR_GRAPHQL_OPERATION_NAME, operation.operationName);
}

/** Records how the request ended on its span. */
export function endOperationSpan(outcome: OperationOutcome, errorCodes: readonly string[]): void {
  const span = trace.getActiveSpan();
  if (!span?.isRecording()) return;
  span.setAttribute('tablegraph.outcome', outcome);
  if (errorCodes.length > 0) span.setAttribute('tablegraph.error_codes', [...errorCodes]);
  if (outcome === 'error') span.setStatus({ code: SpanStatusCode.ERROR, message: errorCodes.join(', ') });
}

/**
 * The transport's layer that traces: one client span per attempt, its `traceparent` sent on the call. Composed
 * innermost, onto the transport itself, so each retry is a span of its own. When tracing is off the call passes
 * untouched: no span, and no copy of its headers (which may be shared by every call of the request, so are copied
 * before a `traceparent` is added; the request's `requestTraceHeaders` are already among them).
 */
export function tracedSend(service: ServiceName): SendLayer {
  return (next) => (req, wire) => {
    if (!tracingOn) return next(req, wire);
    return traceUpstreamCall(service, req, () => {
      const headers = { ...req.headers };
      propagation.inject(context.active(), headers);
      return next({ ...req, headers }, wire);
    });
  };
}

/**
 * Runs one upstream HTTP call inside a client span (`GET /checks/:id`) that is current while `fn` runs, so the
 * call's `traceparent` names this span. Follows the HTTP client conventions: 4xx and 5xx answers and failures
 * without an answer are errors.
 */
async function traceUpstreamCall<T extends { status: number }>(service: ServiceName, call: { method: string; route: string }, fn: () => Promise<T>): Promise<T> {
  const attributes: Attributes = { [ATTR_UPSTREAM_SERVICE]: service, [ATTR_HTTP_REQUEST_METHOD]: call.method, [ATTR_URL_TEMPLATE]: call.route };
  const span = tracer.startSpan(`${call.method} ${call.route}`, { kind: SpanKind.CLIENT, attributes });
  try {
    const answer = await context.with(trace.setSpan(context.active(), span), fn);
    span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, answer.status);
    if (answer.status >= 400) {
      span.setAttribute(ATTR_ERROR_TYPE, String(answer.status));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    return answer;
  } catch (err) {
    span.setAttribute(ATTR_ERROR_TYPE, errorType(err));
    span.setStatus({ code: SpanStatusCode.ERROR, message: errorType(err) });
    throw err;
  } finally {
    span.end();
  }
}

/**
 * A read answered without a call of this request's own (joined to another request's call, or a kept answer): an
 * event `upstream read` on the current span with the service, route and `tablegraph.read.source`, since no client
 * span stands for it. Nothing when tracing is off.
 */
export function traceSharedRead(service: ServiceName, route: string, source: string): void {
  if (!tracingOn) return;
  trace.getActiveSpan()?.addEvent('upstream read', { [ATTR_UPSTREAM_SERVICE]: service, [ATTR_URL_TEMPLATE]: route, 'tablegraph.read.source': source });
}

/** W3C trace context (`traceparent`, `tracestate`), read from the client and written upstream while tracing is off. */
const w3c = new W3CTraceContextPropagator();

/**
 * The trace context headers a GraphQL request adds to each of its upstream calls, from the client's `traceparent` and
 * `tracestate`. When tracing is on, none: `tracedSend` sends each call's own span, so there is only ever one
 * `traceparent`. When it is off, one W3C context for the whole request, shared by its calls:
 *
 * - a well-formed client `traceparent`: its trace-id, parent-id and flags forwarded as they came, with the valid
 *   members of its `tracestate`. The gateway records no span, so a parent-id of its own would point the upstream
 *   spans at a parent that exists nowhere; W3C has a participant that records nothing pass the context through.
 * - none, or a malformed one: a new random trace, unsampled (the gateway records nothing of it), and no
 *   `tracestate`, which means nothing without its `traceparent`.
 */
export function requestTraceHeaders(header: (lowerName: string) => string | undefined): Record<string, string> {
  if (tracingOn) return {};
  const client = w3c.extract(ROOT_CONTEXT, undefined, { get: (_carrier, key) => header(key), keys: () => [] });
  const sent = trace.getSpanContext(client) ? client : trace.setSpanContext(ROOT_CONTEXT, newTrace());
  const headers: Record<string, string> = {};
  w3c.inject(sent, headers, {
    set: (carrier: Record<string, string>, key, value) => {
      if (value !== '') carrier[key] = value;
    },
  });
  return headers;
}

/** A new trace's root: random trace-id and parent-id, neither all zeros, not sampled. */
function newTrace(): SpanContext {
  for (;;) {
    const id = randomBytes(24).toString('hex');
    const root = { traceId: id.slice(0, 32), spanId: id.slice(32), traceFlags: TraceFlags.NONE };
    if (isSpanContextValid(root)) return root;
  }
}

/** The current trace and span ids, for log lines written inside a traced request. */
export function activeTraceIds(): { traceId?: string; spanId?: string } {
  const span = trace.getActiveSpan();
  if (!span?.isRecording()) return {};
  const { traceId, spanId } = span.spanContext();
  return { traceId, spanId };
}

/** A low-cardinality name for what failed: the error's code (`ECONNREFUSED`, `UND_ERR_HEADERS_TIMEOUT`) or class. */
function errorType(err: unknown): string {
  return codeOf(err) ?? (err instanceof Error ? err.name : 'Error');
}
