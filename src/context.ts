import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type DataLoader from 'dataloader';
import type { ClientRequestState } from './clients/state';
import type { Config } from './config';
import { ServiceCredentials } from './credentials';
import { checkById } from './loaders/checkById';
import type { Logger } from './logger';
import type { GatewayMetrics } from './observability/metrics';
import { requestTraceHeaders } from './observability/tracing';
import type { CallScope, UpstreamCallRecord, UpstreamHttp } from './upstreams/http';
import type { DeviationSink } from './upstreams/record';
import { requestMaxAgeSeconds } from './upstreams/readScope';
import type { SharedReads } from './upstreams/sharedReads';
import { PosClient } from './upstreams/pos/PosClient';
import type { CheckRecord } from './upstreams/pos/dto';
import { ReservationClient } from './upstreams/reservation/ReservationClient';

/** The long-lived upstream transports, one per service, shared by all requests. */
export interface Upstreams {
  reservation: UpstreamHttp;
  pos: UpstreamHttp;
}

/** What every resolver of one GraphQL request sees. Built per request: nothing here is shared across requests. */
export interface GatewayContext {
  logger: Logger;
  requestId: string;
  reservation: ReservationClient;
  pos: PosClient;
  loaders: { checkById: DataLoader<string, CheckRecord> };
  /** Every upstream call this request made, for its log line and tests. */
  upstreamCalls: UpstreamCallRecord[];
  /** What the HTTP-layer policies add to the request's log line (src/http/graphqlRoute.ts). */
  logFields: Readonly<Record<string, string>>;
  /** The calling client and its policy (src/clients), when a clients file is loaded. */
  client?: ClientRequestState;
}

/** A request id from the client is kept only when it is well-formed; otherwise one is made. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestIdFrom(header: string | undefined): string {
  return header && REQUEST_ID.test(header) ? header : randomUUID();
}

export interface ContextDeps {
  config: Config;
  logger: Logger;
  upstreams: Upstreams;
  /** Where the loaders report their batch sizes; none in unit tests. */
  metrics?: GatewayMetrics;
  /** Where upstream records report how they differ from the documents (one per gateway: it logs each kind once). */
  deviations?: DeviationSink;
  /** The process's shared upstream reads (one per gateway); none: every request reads for itself. */
  sharedReads?: SharedReads;
}

/** What the context needs of the HTTP request. */
export interface ContextRequest {
  header: (lowerName: string) => string | undefined;
  requestId: string;
  /** The request's log-line fields, shared with the HTTP layer; none in unit tests. */
  logFields?: Readonly<Record<string, string>>;
  /** The calling client, when a clients file is loaded. */
  client?: ClientRequestState;
  /** Where the HTTP layer collects the calls of the whole HTTP request; none in unit tests. */
  upstreamCalls?: UpstreamCallRecord[];
}

/**
 * Builds the per-request context: credentials come from this request's headers only, and the clients and
 * loaders are new objects, so nothing can leak between concurrent requests.
 */
export function createContext(deps: ContextDeps, request: ContextRequest): GatewayContext {
  // The HTTP layer's own list when it keeps one (idempotency reads it), so each call is recorded once.
  const upstreamCalls: UpstreamCallRecord[] = request.upstreamCalls ?? [];
  const signal = AbortSignal.timeout(deps.config.requestTimeoutMs);
  // Every upstream call of the request listens on this one signal (a day's list makes 31): no leak to warn of.
  setMaxListeners(0, signal);
  // W3C trace context: one per request when tracing is off; when on, each call's span is injected by the transport.
  const gatewayHeaders = { 'x-request-id': request.requestId, ...requestTraceHeaders(request.header) };
  const scope: CallScope = {
    headers: () => gatewayHeaders,
    requestId: request.requestId,
    record: (r) => upstreamCalls.push(r),
    // One budget for the whole request, shared by every upstream call and retry it makes.
    deadline: Date.now() + deps.config.requestTimeoutMs,
    signal,
    deviations: deps.deviations,
    sharedReads: deps.sharedReads,
    // The staleness the client accepts (`Cache-Control: max-age`), never more than the gateway's cap.
    maxAgeMs: deps.sharedReads ? Math.min(requestMaxAgeSeconds(request.header('cache-control')) * 1000, deps.sharedReads.maxAgeMs) : 0,
  };
  const reservation = new ReservationClient(deps.upstreams.reservation, ServiceCredentials.from('reservation', request.header), scope);
  const pos = new PosClient(deps.upstreams.pos, ServiceCredentials.from('pos', request.header), scope, deps.config.posTimestampUnit);
  return {
    logger: deps.logger.child({ requestId: request.requestId }),
    requestId: request.requestId,
    reservation,
    pos,
    loaders: { checkById: checkById(pos, deps.config.checkLoaderConcurrency, (size) => deps.metrics?.observeLoaderBatch('checkById', size)) },
    upstreamCalls,
    logFields: request.logFields ?? {},
    client: request.client,
  };
}
