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
import { CallAbort, type CallSignal } from './upstreams/callSignal';
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

/**
 * Credentials come from this request's headers only, and clients and loaders are new: nothing leaks between requests.
 * Built of class instances, without a closure over the request: with closures made here, each request's objects
 * outlived young-generation collections (docs/performance.md, the ledger).
 */
export function createContext(deps: ContextDeps, request: ContextRequest): GatewayContext {
  const deadline = new RequestDeadline(Date.now() + deps.config.requestTimeoutMs);
  request.record.release = deadline;
  return new RequestContext(deps, request, new RequestScope(deps, request, deadline));
}

/** What every call of one request carries (src/upstreams/http.ts), as methods of one object. */
class RequestScope implements CallScope {
  readonly requestId: string;
  readonly deadline: number;
  readonly deviations?: DeviationSink;
  readonly sharedReads?: SharedReads;
  /** The staleness the client accepts (`Cache-Control: max-age`), never more than the gateway's cap. */
  readonly maxAgeMs: number;
  private readonly gatewayHeaders: Record<string, string>;

  constructor(
    deps: ContextDeps,
    private readonly request: ContextRequest,
    private readonly timer: RequestDeadline,
  ) {
    this.requestId = request.record.requestId;
    this.deadline = timer.at;
    this.deviations = deps.deviations;
    this.sharedReads = deps.sharedReads;
    this.maxAgeMs = deps.sharedReads ? Math.min(requestMaxAgeSeconds(request.header('cache-control')) * 1000, deps.sharedReads.maxAgeMs) : 0;
    this.gatewayHeaders = { 'x-request-id': this.requestId, ...requestTraceHeaders(request.header) };
  }

  headers(): Record<string, string> {
    return this.gatewayHeaders;
  }

  record(call: UpstreamCallRecord): void {
    this.request.record.upstreamCalls.push(call);
  }

  /** Made when the request first calls a service (a client reads it once per service it calls). */
  get signal(): CallSignal {
    return this.timer.signal;
  }

  track<T>(call: Promise<T>): Promise<T> {
    return this.timer.track(call);
  }

  /** Read when a write is made, not now: the idempotency step sets it on the record before execution. */
  beforeWrite(): Promise<void> | undefined {
    return this.request.record.beforeUpstreamWrite?.();
  }
}

/** The batch-size metric's callback of each gateway's metrics, made once rather than per request. */
const batchObservers = new WeakMap<GatewayMetrics, (size: number) => void>();

function observeCheckBatches(metrics: GatewayMetrics | undefined): ((size: number) => void) | undefined {
  if (!metrics) return undefined;
  let observe = batchObservers.get(metrics);
  if (!observe) batchObservers.set(metrics, (observe = (size) => metrics.observeLoaderBatch('checkById', size)));
  return observe;
}

/** One request's context. Plain fields (no `#`): Apollo runs each operation on a shallow copy of it. */
class RequestContext implements GatewayContext {
  readonly requestId: string;
  readonly reservation: ReservationClient;
  readonly pos: PosClient;
  readonly loaders: GatewayContext['loaders'];
  readonly upstreamCalls: UpstreamCallRecord[];
  readonly record: RequestRecord;
  readonly answer: GatewayContext['answer'] = {};
  compiledResult?: ExecutionResult;
  variables?: GatewayContext['variables'];
  private childLogger: Logger | undefined;

  constructor(
    private readonly deps: ContextDeps,
    request: ContextRequest,
    scope: RequestScope,
  ) {
    this.record = request.record;
    this.requestId = request.record.requestId;
    this.upstreamCalls = request.record.upstreamCalls;
    this.reservation = new ReservationClient(deps.upstreams.reservation, ServiceCredentials.from('reservation', request.header), scope);
    this.pos = new PosClient(deps.upstreams.pos, ServiceCredentials.from('pos', request.header), scope, deps.config.posTimestampUnit);
    this.loaders = { checkById: checkById(this.pos, deps.config.checkLoaderConcurrency, observeCheckBatches(deps.metrics)) };
  }

  /** Made when a resolver first logs: most requests never do, and a child logger serialises its bindings. */
  get logger(): Logger {
    return (this.childLogger ??= this.deps.logger.child({ requestId: this.requestId }));
  }
}

/**
 * The request's deadline as the signal its upstream calls listen on, made on first use: most requests that call no
 * service never pay for one. A CallAbort with a plain timer, cleared once the request is recorded and its calls have
 * settled: an AbortSignal per request outlived young-generation collections on Node 20, and kept what listened on it
 * (docs/performance.md, the ledger).
 */
class RequestDeadline {
  private controller: CallAbort | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** Calls not settled yet: one may outlive the request's answer (a sibling of a failed non-null field). */
  private calls = 0;
  private released = false;
  private ended: (() => void) | undefined;

  constructor(readonly at: number) {}

  get signal(): CallSignal {
    if (this.controller) return this.controller;
    const controller = (this.controller = new CallAbort());
    const abort = () => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
    const remaining = this.at - Date.now();
    if (remaining <= 0) abort();
    else this.timer = setTimeout(abort, remaining).unref();
    return controller;
  }

  /** A call of the request: the deadline stays armed until it settles, even once the request is recorded. */
  track<T>(call: Promise<T>): Promise<T> {
    this.calls += 1;
    const ended = (this.ended ??= () => {
      this.calls -= 1;
      if (this.released && this.calls === 0) this.clear();
    });
    call.then(ended, ended);
    return call;
  }

  /** The request is recorded: the timer goes once no call of it is left to abort. */
  release(): void {
    this.released = true;
    if (this.calls === 0) this.clear();
  }

  private clear(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
