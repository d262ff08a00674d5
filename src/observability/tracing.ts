import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, context, isSpanContextValid, propagation, trace, type Attributes, type SpanContext } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-node';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_SERVICE_INSTANCE_ID,
  ATTR_SERVICE_NAME,
} from '@opentelemetry/semantic-conventions';
import { codeOf } from '../errors/errorFields';
import type { ServiceName } from '../errors/UpstreamError';
import type { Answer, SendLayer, TransportRequest } from '../upstreams/transport';

// Incubating conventions, so copied rather than imported from the package's unstable entry.
const ATTR_URL_TEMPLATE = 'url.template';
const ATTR_GRAPHQL_OPERATION_NAME = 'graphql.operation.name';
const ATTR_GRAPHQL_OPERATION_TYPE = 'graphql.operation.type';
const ATTR_UPSTREAM_SERVICE = 'tablegraph.upstream.service';

/** A proxy: until startTracing registers a provider, every span is a non-recording no-op. */
const tracer = trace.getTracer('tablegraph');

/** Whether startTracing registered a provider (and has not been shut down). */
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

/** Registers the process-wide provider with batched OTLP/HTTP export; the SDK is loaded only when there is somewhere to send. */
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

/** Runs one GraphQL HTTP request inside its server span `graphql`, continuing the client's trace. */
export async function withOperationSpan<T>(request: { method: string; headers: Record<string, string | string[] | undefined> }, fn: () => Promise<T>): Promise<T> {
  if (!tracingOn) return fn();
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

/** Runs `fn` outside any trace: work a request started but that serves others (a live poll) begins traces of its own. */
export function outsideTraces<T>(fn: () => T): T {
  return context.with(ROOT_CONTEXT, fn);
}

/**
 * Records how the request ended on its span, renamed after what it ran: `graphql batch`, or the one operation's type and
 * name (`query Day`) when it has a type.
 */
export function endOperationSpan({ outcome, errorCodes }: { outcome: string; errorCodes: readonly string[] }, batched: boolean, operation?: { type?: string; operationName: string | null }): void {
  if (!tracingOn) return;
  const span = trace.getActiveSpan();
  if (!span?.isRecording()) return;
  const name = batched ? 'graphql batch' : operation?.type && `${operation.type} ${operation.operationName ?? ''}`.trimEnd();
  if (name) span.updateName(name);
  if (operation?.type) span.setAttribute(ATTR_GRAPHQL_OPERATION_TYPE, operation.type);
  if (operation?.operationName) span.setAttribute(ATTR_GRAPHQL_OPERATION_NAME, operation.operationName);
  span.setAttribute('tablegraph.outcome', outcome);
  if (errorCodes.length > 0) span.setAttribute('tablegraph.error_codes', [...errorCodes]);
  if (outcome === 'error') span.setStatus({ code: SpanStatusCode.ERROR, message: errorCodes.join(', ') });
}

/** The transport's innermost layer: a client span per attempt (each retry its own), current while the call runs. */
export function tracedSend(service: ServiceName): SendLayer {
  return (next) => (req, wire) => (tracingOn ? traceUpstreamCall(service, req, (headers) => next({ ...req, headers }, wire)) : next(req, wire));
}

/** One call in its client span (`GET /checks/:id`); 4xx, 5xx and failures are errors, as the HTTP conventions say. */
async function traceUpstreamCall(service: ServiceName, req: TransportRequest, send: (headers: Record<string, string>) => Promise<Answer>): Promise<Answer> {
  const attributes: Attributes = { [ATTR_UPSTREAM_SERVICE]: service, [ATTR_HTTP_REQUEST_METHOD]: req.method, [ATTR_URL_TEMPLATE]: req.route };
  const span = tracer.startSpan(`${req.method} ${req.route}`, { kind: SpanKind.CLIENT, attributes });
  try {
    const answer = await context.with(trace.setSpan(context.active(), span), () => {
      // A copy: the request's calls may share one headers object.
      const headers = { ...req.headers };
      propagation.inject(context.active(), headers);
      return send(headers);
    });
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

/** A read answered without a call of its own (joined or cached): an event on the current span, as no client span stands for it. */
export function traceSharedRead(service: ServiceName, route: string, source: string): void {
  if (!tracingOn) return;
  trace.getActiveSpan()?.addEvent('upstream read', { [ATTR_UPSTREAM_SERVICE]: service, [ATTR_URL_TEMPLATE]: route, 'tablegraph.read.source': source });
}

const w3c = new W3CTraceContextPropagator();

/**
 * The trace context a request sends on all its upstream calls while tracing is off (when on, `tracedSend` sends each
 * call's span): a well-formed client `traceparent` passed through as it came, with its `tracestate` (the gateway
 * records no span to be a parent), else a new unsampled trace without `tracestate`.
 */
export function requestTraceHeaders(header: (lowerName: string) => string | undefined): Record<string, string> {
  if (tracingOn) return {};
  // Most requests come without one: the new trace's header as the propagator would write it (unsampled, no state).
  if (header('traceparent') === undefined) {
    const root = newTrace();
    return { traceparent: `00-${root.traceId}-${root.spanId}-00` };
  }
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

/** A new unsampled trace's root: random trace-id and parent-id, neither all zeros. */
function newTrace(): SpanContext {
  const id = randomHex(24);
  const root = { traceId: id.slice(0, 32), spanId: id.slice(32), traceFlags: TraceFlags.NONE };
  return isSpanContextValid(root) ? root : newTrace();
}

/** Random bytes for ids, taken from a pool filled 128 ids at a time: one read of the system's randomness per 128 requests. */
const ID_POOL_BYTES = 24 * 128;
let idPool = Buffer.alloc(0);
let idPoolOffset = 0;
function randomHex(bytes: number): string {
  if (idPoolOffset + bytes > idPool.length) {
    idPool = randomBytes(ID_POOL_BYTES);
    idPoolOffset = 0;
  }
  const hex = idPool.toString('hex', idPoolOffset, idPoolOffset + bytes);
  idPoolOffset += bytes;
  return hex;
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
