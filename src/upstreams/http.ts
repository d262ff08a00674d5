import type { z } from 'zod';
import { callerHash, type ServiceCredentials } from '../credentials';
import { InputError, MissingCredentialError } from '../errors/InputError';
import { traceSharedRead, tracedSend } from '../observability/tracing';
import type { ServiceName } from '../errors/UpstreamError';
import type { CallSignal } from './callSignal';
import { BODY_IGNORED, checkStatus, readBody, type Reading } from './answer';
import type { UpstreamCallRecord, UpstreamEvents } from './events';
import { UpstreamRecord, type DeviationSink, type Shape } from './record';
import { UpstreamResilience, type ResilienceOptions } from './resilience';
import { UUID_PATTERN } from './schemas';
import type { ReadKey, SharedReads } from './sharedReads';
import { UpstreamTransport, WireMark, deadlineError, queryString, transportError, type Answer, type Send, type TransportOptions, type TransportRequest } from './transport';

export { BODY_IGNORED } from './answer';
export type { UpstreamCallRecord } from './events';

export interface UpstreamHttpOptions extends TransportOptions, Pick<UpstreamEvents, 'onCall'> {
  service: ServiceName;
  /** Retries, circuit breaker and bulkhead of this upstream; none when absent. */
  resilience?: Omit<ResilienceOptions, 'service'>;
}

/** One operation's call: what to send, how its 2xx body is read, and its deadline. */
export interface UpstreamRequest<T> extends Omit<TransportRequest, 'ignoreSuccessBody'>, Reading<T> {
  /** The GraphQL request's deadline (epoch ms): retries never wait past it. */
  deadline?: number;
}

/**
 * Every property of `T`, the optional ones too (undefined when absent): the type of a request copied field by field
 * rather than spread, so that a field added to `T` later fails to compile there instead of being dropped.
 */
type EveryField<T> = { [K in keyof Required<T>]: T[K] | undefined };

/** What a per-request client adds to every call: the gateway's own headers, the record sink, the deadline. */
export interface CallScope {
  /** Headers of the gateway's own: request id, trace context. */
  headers(): Record<string, string>;
  requestId?: string;
  record?: (record: UpstreamCallRecord) => void;
  /** The request's deadline, epoch ms, and the signal that aborts at it. */
  deadline?: number;
  signal?: CallSignal;
  /** Where the records of this request's answers report how they differ from the documents. */
  deviations?: DeviationSink;
  /** The gateway's shared reads; without them every call is the request's own. */
  sharedReads?: SharedReads;
  /** The oldest kept answer this request accepts, ms: its `Cache-Control: max-age`, capped. 0 or absent: none. */
  maxAgeMs?: number;
  /**
   * Awaited before a write (any call but a GET) goes to a service, retries and all; a rejection stops it before a
   * byte is sent. The idempotency step records here that a keyed mutation may reach the upstream. Undefined: go on.
   */
  beforeWrite?: () => Promise<void> | undefined;
  /** Told of each call, which it returns: the deadline stays armed while one is unsettled. */
  track?<T>(call: Promise<T>): Promise<T>;
}

/** What one call carries besides the request itself, from the request that makes it. */
export interface CallContext extends Pick<CallScope, 'record' | 'requestId' | 'beforeWrite'> {
  /** The credential values sent on the call: never quoted back in an error. */
  secrets?: readonly string[];
  /** GETs are shared with requests that sent credentials of this hash, and writes mark them; absent, neither. */
  shared?: { reads: SharedReads; credentialHash: string; maxAgeMs: number };
}

/** A path segment from an id: raw input never goes into a path, so the id is checked here whatever the caller did. */
export function uuidSegment(value: string, field: string): string {
  if (!UUID_PATTERN.test(value)) throw new InputError(`${field} must be a UUID`, field);
  return encodeURIComponent(value);
}

type Outcome = Pick<UpstreamCallRecord, 'status' | 'sent' | 'source' | 'ageMs' | 'error'>;

/** One upstream service: the traced transport, the reading of each answer, and the resilience policies. */
export class UpstreamHttp {
  readonly service: ServiceName;
  readonly resilience?: UpstreamResilience;
  private readonly transport: UpstreamTransport;
  private readonly send: Send;

  constructor(private readonly options: UpstreamHttpOptions) {
    this.service = options.service;
    this.transport = new UpstreamTransport(options);
    this.send = tracedSend(options.service)((req, wire) => this.transport.send(req, wire));
    if (options.resilience) this.resilience = new UpstreamResilience({ service: options.service, ...options.resilience });
  }

  /** Resolves the read body. Each attempt (a retry included) is one record. */
  call<T>(req: UpstreamRequest<T>, context: CallContext = {}): Promise<T> {
    // No write hook for a call whose deadline has passed: ready() refuses it.
    const ready = req.method === 'GET' || req.signal?.aborted ? undefined : context.beforeWrite?.();
    return ready ? ready.then(() => this.ready(req, context)) : this.ready(req, context);
  }

  close(): Promise<void> {
    return this.transport.close();
  }

  /** A call whose write hook (if any) has run, unless its deadline has passed meanwhile: shared, or the request's own. */
  private ready<T>(req: UpstreamRequest<T>, context: CallContext): Promise<T> {
    if (req.signal?.aborted) return Promise.reject(deadlineError(this.service));
    const { shared } = context;
    if (shared && req.method === 'GET' && req.response !== BODY_IGNORED.response) return this.sharedRead(req, context, shared);
    const done = this.execute(req, context, req.signal, (answer) => readBody(this.service, req, answer));
    if (!shared || req.method === 'GET') return done;
    // A write marks its scope once it has finished, whatever its outcome (a failed write may still have written),
    // before the resolver that made it returns, so before its GraphQL response is sent.
    return done.finally(() => shared.reads.mark(this.service, shared.credentialHash));
  }

  /** The attempts of one call under the resilience policies; `read` makes the value of a 2xx answer. */
  private execute<R>(req: UpstreamRequest<unknown>, context: CallContext, signal: CallSignal | undefined, read: (answer: Answer) => R): Promise<R> {
    const attempt = () => this.attempt({ ...req, signal }, context, read);
    if (!this.resilience) return attempt();
    return this.resilience.execute(req.method === 'GET', attempt, req.deadline ?? Number.POSITIVE_INFINITY, signal);
  }

  /** A GET kept, joined, or this request's own; each request reads it with its own deviation sink (a joined answer is parsed once). */
  private async sharedRead<T>(req: UpstreamRequest<T>, context: CallContext, shared: NonNullable<CallContext['shared']>): Promise<T> {
    const key: ReadKey = { service: this.service, route: req.route, target: req.path + queryString(req.query), credentialHash: shared.credentialHash };
    let own: { value: T } | undefined;
    // Read inside the attempt, so an unusable body is that attempt's failure (shared with the joiners), never kept.
    const fetch = (signal: CallSignal) => this.execute(req, context, signal, (answer) => ((own = { value: readBody(this.service, req, answer) }), answer));
    const started = performance.now();
    const read = shared.reads.read(key, fetch, { signal: req.signal, maxAgeMs: shared.maxAgeMs });
    if (read.source === 'upstream') {
      await read.answer;
      return own!.value;
    }
    traceSharedRead(this.service, req.route, read.source);
    const { source, ageMs } = read;
    let answer: Answer | undefined;
    try {
      answer = await read.answer;
      const value = readBody(this.service, req, answer);
      this.record(req, context, started, { status: answer.status, sent: false, source, ageMs });
      return value;
    } catch (err) {
      const error = transportError(this.service, err, req.signal);
      if (source === 'cache') shared.reads.forget(key);
      this.record(req, context, started, { status: error.status ?? answer?.status, sent: false, source, ageMs, error });
      throw error;
    }
  }

  private async attempt<R>(req: UpstreamRequest<unknown>, context: CallContext, read: (answer: Answer) => R): Promise<R> {
    const started = performance.now();
    const wire = new WireMark();
    let status: number | undefined;
    try {
      const { method, route, path, query, headers, body, signal } = req;
      // One literal, not a spread and a property it lacks: that makes V8 build a hidden class per call (docs/performance.md, "Hidden classes").
      const sent = { method, route, path, query, headers, body, signal, ignoreSuccessBody: req.response === BODY_IGNORED.response } satisfies EveryField<TransportRequest>;
      const answer = await this.send(sent, wire);
      status = answer.status;
      checkStatus(this.service, answer, context.secrets ?? []);
      const value = read(answer);
      this.record(req, context, started, { status, sent: wire.written, source: 'upstream' });
      return value;
    } catch (err) {
      const error = transportError(this.service, err, req.signal);
      this.record(req, context, started, { status: error.status ?? status, sent: wire.written, source: 'upstream', error });
      throw error;
    }
  }

  /** The record of one read; only the request's own calls are told to onCall. */
  private record(req: UpstreamRequest<unknown>, context: CallContext, started: number, outcome: Outcome): void {
    const record: UpstreamCallRecord = {
      service: this.service,
      method: req.method,
      route: req.route,
      durationMs: performance.now() - started,
      requestId: context.requestId,
      ...outcome,
    };
    context.record?.(record);
    if (record.source === 'upstream') this.options.onCall?.(record);
  }
}

/** A request as a client writes it: the scope adds the headers, the deadline and its signal. */
export type ClientRequest<R> = Omit<R, 'headers' | 'signal' | 'deadline'>;

/** What every call of one service within one request carries: fixed for the request, so made once. */
interface Fixed {
  sent: Pick<UpstreamRequest<unknown>, 'headers' | 'signal' | 'deadline'>;
  context: CallContext;
}

/** One service's calls within one GraphQL request: its credentials (to this service only), headers and deadline. */
export class ScopedCaller {
  /** Made on the first call, not here: most requests call only one of the services whose callers they build. */
  private fixed: Fixed | undefined;

  constructor(
    private readonly http: UpstreamHttp,
    private readonly credentials: ServiceCredentials,
    private readonly scope: CallScope,
  ) {}

  /** `required`: the lower-cased credential headers the operation needs; without one, it is refused before any call. */
  call<T>(required: readonly string[], req: ClientRequest<UpstreamRequest<T>>): Promise<T> {
    const missing = this.credentials.missing(required);
    if (missing.length > 0) throw new MissingCredentialError(missing);
    const { sent, context } = (this.fixed ??= this.fix());
    const { method, route, path, query, body, response, onEmpty } = req;
    // One literal, not a spread and properties it lacks: that makes V8 build a hidden class per call (docs/performance.md, "Hidden classes").
    const request = { method, route, path, query, body, response, onEmpty, headers: sent.headers, signal: sent.signal, deadline: sent.deadline } satisfies EveryField<UpstreamRequest<T>>;
    const call = this.http.call(request, context);
    return this.scope.track ? this.scope.track(call) : call;
  }

  private fix(): Fixed {
    const { scope, credentials } = this;
    // Shared by every call of the request: the transport and tracing copy it before writing.
    const sentCredentials = credentials.headers(this.http.service);
    // Not `{ ...a, ...b }`: the second spread would build a hidden class per request (docs/performance.md, "Hidden classes").
    const headers = Object.assign({}, scope.headers(), sentCredentials);
    // Shared reads are keyed by the hash of exactly the credentials sent to this service, never by the values.
    const sentByName = new Map(Object.entries(sentCredentials).map(([name, value]) => [name.toLowerCase(), value]));
    const shared = scope.sharedReads && { reads: scope.sharedReads, credentialHash: callerHash((name) => sentByName.get(name)), maxAgeMs: scope.maxAgeMs ?? 0 };
    return {
      sent: { headers, signal: scope.signal, deadline: scope.deadline },
      context: new ServiceCallContext(scope, credentials.secrets(), shared),
    };
  }
}

/** One service's CallContext within a request: the scope's record and write hook called on the scope itself. */
class ServiceCallContext implements CallContext {
  readonly requestId?: string;

  constructor(
    private readonly scope: CallScope,
    readonly secrets: readonly string[],
    readonly shared: CallContext['shared'],
  ) {
    this.requestId = scope.requestId;
  }

  record(call: UpstreamCallRecord): void {
    this.scope.record?.(call);
  }

  beforeWrite(): Promise<void> | undefined {
    return this.scope.beforeWrite?.();
  }
}

/** The `response` of a call whose answer is read as a record of `schema` (see UpstreamRecord.of). */
export function recordReader<S extends Shape>(
  schema: z.ZodObject<S, z.core.$ZodObjectConfig>,
  service: ServiceName,
  route: string,
  scope: Pick<CallScope, 'deviations'>,
): (body: unknown, status: number) => UpstreamRecord<S> {
  return (body, status) => UpstreamRecord.of(schema, body, { service, route, status, deviations: scope.deviations });
}
