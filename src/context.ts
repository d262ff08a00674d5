import { setMaxListeners } from 'node:events';
import type DataLoader from 'dataloader';
import type { ExecutionResult } from 'graphql';
import type { Config } from './config';
import { ServiceCredentials } from './credentials';
import { createRequestRecord, type RequestRecord } from './http/requestRecord';
import { checkById } from './loaders/checkById';
import type { Logger } from './logger';
import type { GatewayMetrics } from './observability/metrics';
import { requestTraceHeaders } from './observability/tracing';
import type { CallScope, UpstreamCallRecord, UpstreamHttp } from './upstreams/http';
import type { DeviationSink } from './upstreams/record';
import { requestMaxAgeSeconds } from './upstreams/sharedReads';
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
  /** Every upstream call this request made (the record's list), for its log line and tests. */
  upstreamCalls: UpstreamCallRecord[];
  /** The request's record (src/http/requestRecord.ts): its client, cost, outcome. */
  record: RequestRecord;
  /** A result the compiled executor made, with errors, for Apollo to format (src/execution/compiledPath.ts). */
  compiledResult?: ExecutionResult;
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

/** What the context needs of the request: its headers, and its record (a new one in unit tests). */
export interface ContextRequest {
  header: (lowerName: string) => string | undefined;
  record?: RequestRecord;
  /** Only without a record: the request id. */
  requestId?: string;
}

/**
 * Builds the per-request context: credentials come from this request's headers only, and the clients and
 * loaders are new objects, so nothing can leak between concurrent requests.
 */
export function createContext(deps: ContextDeps, request: ContextRequest): GatewayContext {
  const record = request.record ?? createRequestRecord(request.requestId);
  const { requestId, upstreamCalls } = record;
  const signal = AbortSignal.timeout(deps.config.requestTimeoutMs);
  // Every upstream call of the request listens on this one signal (a day's list makes 31): no leak to warn of.
  setMaxListeners(0, signal);
  // W3C trace context: one per request when tracing is off; when on, each call's span is injected by the transport.
  const gatewayHeaders = { 'x-request-id': requestId, ...requestTraceHeaders(request.header) };
  const scope: CallScope = {
    headers: () => gatewayHeaders,
    requestId,
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
    logger: deps.logger.child({ requestId }),
    requestId,
    reservation,
    pos,
    loaders: { checkById: checkById(pos, deps.config.checkLoaderConcurrency, (size) => deps.metrics?.observeLoaderBatch('checkById', size)) },
    upstreamCalls,
    record,
  };
}
