import { setMaxListeners } from 'node:events';
import type DataLoader from 'dataloader';
import type { ExecutionResult, getVariableValues, OperationDefinitionNode } from 'graphql';
import type { Config } from './config';
import { ServiceCredentials } from './credentials';
import type { ServiceName } from './errors/UpstreamError';
import type { RequestRecord } from './pipeline/record';
import type { ResultStream } from './pipeline/stream';
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
export type Upstreams = Record<ServiceName, UpstreamHttp>;

/** What every resolver of one GraphQL request sees. Built per request: nothing here is shared across requests. */
export interface GatewayContext {
  logger: Logger;
  requestId: string;
  reservation: ReservationClient;
  pos: PosClient;
  loaders: { checkById: DataLoader<string, CheckRecord> };
  /** Every upstream call this request made (the record's list). */
  upstreamCalls: UpstreamCallRecord[];
  record: RequestRecord;
  /** A result the compiled executor made, with errors, for Apollo to format. */
  compiledResult?: ExecutionResult;
  /**
   * Where the executor leaves an answer that is a stream (a subscription's events, an incremental answer's parts), for
   * the route to return it to a transport; `streamable`: the route lets this request's one operation be answered part
   * by part (never a batch's). An object of its own: Apollo runs each operation on a shallow copy of the context.
   */
  readonly answer: { stream?: ResultStream; streamable?: boolean };
  /** An operation's variables as graphql-js coerced them (src/limits/costLimit.ts coerceVariables). */
  variables?: { operation: OperationDefinitionNode; raw: unknown; values: ReturnType<typeof getVariableValues> };
}

export interface ContextDeps {
  config: Config;
  logger: Logger;
  upstreams: Upstreams;
  /** Each optional part is one per gateway; without it (unit tests) nothing is counted, reported or shared. */
  metrics?: GatewayMetrics;
  deviations?: DeviationSink;
  sharedReads?: SharedReads;
}

/** What the context needs of the request: its headers and its record. */
export interface ContextRequest {
  header: (lowerName: string) => string | undefined;
  record: RequestRecord;
}

/** Credentials come from this request's headers only, and clients and loaders are new: nothing leaks between requests. */
export function createContext(deps: ContextDeps, request: ContextRequest): GatewayContext {
  const { requestId, upstreamCalls } = request.record;
  const signal = AbortSignal.timeout(deps.config.requestTimeoutMs);
  // Every upstream call of the request listens on this one signal (a day's list makes 31): no leak to warn of.
  setMaxListeners(0, signal);
  const gatewayHeaders = { 'x-request-id': requestId, ...requestTraceHeaders(request.header) };
  const scope: CallScope = {
    headers: () => gatewayHeaders,
    requestId,
    record: (r) => upstreamCalls.push(r),
    deadline: Date.now() + deps.config.requestTimeoutMs,
    signal,
    deviations: deps.deviations,
    sharedReads: deps.sharedReads,
    // The staleness the client accepts (`Cache-Control: max-age`), never more than the gateway's cap.
    maxAgeMs: deps.sharedReads ? Math.min(requestMaxAgeSeconds(request.header('cache-control')) * 1000, deps.sharedReads.maxAgeMs) : 0,
    // Read when a write is made, not now: the idempotency step sets it on the record before execution.
    beforeWrite: () => request.record.beforeUpstreamWrite?.(),
  };
  const reservation = new ReservationClient(deps.upstreams.reservation, ServiceCredentials.from('reservation', request.header), scope);
  const pos = new PosClient(deps.upstreams.pos, ServiceCredentials.from('pos', request.header), scope, deps.config.posTimestampUnit);
  let logger: Logger | undefined;
  return {
    // Made when a resolver first logs: most requests never do, and a child logger serialises its bindings.
    get logger() {
      return (logger ??= deps.logger.child({ requestId }));
    },
    requestId,
    reservation,
    pos,
    loaders: { checkById: checkById(pos, deps.config.checkLoaderConcurrency, (size) => deps.metrics?.observeLoaderBatch('checkById', size)) },
    upstreamCalls,
    record: request.record,
    answer: {},
  };
}
