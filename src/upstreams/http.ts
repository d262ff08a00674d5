import { InputError } from '../errors/InputError';
import { traceSharedRead, tracedSend } from '../observability/tracing';
import type { UpstreamError, ServiceName } from '../errors/UpstreamError';
import { BODY_IGNORED, checkStatus, readBody, type BodyReader } from './answer';
import type { UpstreamCallRecord, UpstreamEvents } from './events';
import type { DeviationSink } from './record';
import { UpstreamResilience, type ResilienceOptions } from './resilience';
import { UUID_PATTERN } from './schemas';
import type { ReadKey, SharedReads } from './sharedReads';
import { UpstreamTransport, deadlineError, queryString, transportError, type Answer, type Send, type TransportOptions, type TransportRequest } from './transport';
import { WireMark } from './wireSignal';

export { BODY_IGNORED, type BodyReader } from './answer';
export type { UpstreamCallRecord } from './events';

export interface UpstreamHttpOptions extends TransportOptions, Pick<UpstreamEvents, 'onCall'> {
  service: ServiceName;
  /** Retries, circuit breaker and bulkhead of this upstream; none when absent. */
  resilience?: Omit<ResilienceOptions, 'service'>;
}

/** One operation's call: what to send (as the transport sends it), how its 2xx body is read, and its deadline. */
export interface UpstreamRequest<T> extends Omit<TransportRequest, 'ignoreSuccessBody'> {
  /** What a non-empty 2xx body becomes (./answer.ts). */
  response: BodyReader<T>;
  /** What a 2xx without a body becomes; absent, such an answer is a bad response. */
  onEmpty?: () => T;
  /** The GraphQL request's deadline (epoch ms): retries never wait past it. */
  deadline?: number;
}

/** A call whose 2xx body means nothing (BODY_IGNORED): it resolves once the answer says success. */
export type IgnoredBodyRequest = Omit<UpstreamRequest<never>, 'response' | 'onEmpty'> & { response: typeof BODY_IGNORED };

/** What a per-request client adds to every call: the gateway's own headers, the record sink, the deadline. */
export interface CallScope {
  /** Headers of the gateway's own: request id, trace context. */
  headers(): Record<string, string>;
  /** The GraphQL request's id, for the records of its calls. */
  requestId?: string;
  record?: (record: UpstreamCallRecord) => void;
  /** Aborts at the request's deadline. */
  signal?: AbortSignal;
  /** The request's deadline, epoch ms. */
  deadline?: number;
  /** Where the records of this request's answers report how they differ from the documents. */
  deviations?: DeviationSink;
  /** The gateway's shared reads (./sharedReads.ts); without them every call is the request's own. */
  sharedReads?: SharedReads;
  /** The oldest kept answer this request accepts, ms: its `Cache-Control: max-age`, capped. 0 or absent: none. */
  maxAgeMs?: number;
}

/** One request's part in the shared reads of one service: the hash of the credentials its calls carry. */
export interface ShareScope {
  reads: SharedReads;
  /** credentialHash() of the credential headers sent to the service. */
  credentialHash: string;
  maxAgeMs: number;
}

/** What one call carries besides the request itself, from the request that makes it. */
export interface CallContext {
  /** Told of each attempt. */
  record?: (record: UpstreamCallRecord) => void;
  /** The GraphQL request's id, put on each record. */
  requestId?: string;
  /** The credential values sent on the call (ServiceCredentials.secrets()): never quoted back in an error. */
  secrets?: readonly string[];
  /** GETs are shared with other requests with the same credentials, and writes mark them; absent, neither. */
  shared?: ShareScope;
}

/** A path segment from an id: raw input never goes into a path, so the id is checked here whatever the caller did. */
export function uuidSegment(value: string, field: string): string {
  if (!UUID_PATTERN.test(value)) throw new InputError(`${field} must be a UUID`, field);
  return encodeURIComponent(value);
}

/**
 * One upstream service as its clients see it: the transport (./transport.ts) with tracing composed onto it, the
 * reading of each answer (./answer.ts), and the resilience policies around each attempt. Every failure becomes an
 * UpstreamError.
 */
export class UpstreamHttp {
  readonly service: ServiceName;
  readonly resilience?: UpstreamResilience;
  private readonly transport: UpstreamTransport;
  private readonly send: Send;

  constructor(private readonly options: UpstreamHttpOptions) {
    this.service = options.service;
    this.transport = new UpstreamTransport(options);
    this.send = this.transport.compose(tracedSend(options.service));
    if (options.resilience) this.resilience = new UpstreamResilience({ service: options.service, ...options.resilience });
  }

  /**
   * Calls the service under its resilience policies; resolves the read body, or nothing for an operation whose body
   * is ignored. Each attempt (a retry included) is one record.
   */
  call(req: IgnoredBodyRequest, context?: CallContext): Promise<void>;
  call<T>(req: UpstreamRequest<T>, context?: CallContext): Promise<T>;
  call<T>(req: UpstreamRequest<T> | IgnoredBodyRequest, context?: CallContext): Promise<T | undefined>;
  call<T>(req: UpstreamRequest<T> | IgnoredBodyRequest, context: CallContext = {}): Promise<T | undefined> {
    if (req.signal?.aborted) return Promise.reject(deadlineError(this.service));
    const { shared } = context;
    if (shared && req.method === 'GET' && req.response !== BODY_IGNORED) return this.sharedRead(req, context, shared);
    const done = this.execute(req, context, req.signal, (answer) => (req.response === BODY_IGNORED ? undefined : readBody(this.service, req, answer)));
    if (!shared || req.method === 'GET') return done;
    // A write marks its scope once it has finished, whatever its outcome (a failed write may still have written),
    // before the resolver that made it returns, so before its GraphQL response is sent.
    return done.finally(() => shared.reads.mark(this.service, shared.credentialHash));
  }

  close(): Promise<void> {
    return this.transport.close();
  }

  /** The attempts of one call under the resilience policies; `read` makes the value of a 2xx answer. */
  private execute<R>(req: UpstreamRequest<unknown> | IgnoredBodyRequest, context: CallContext, signal: AbortSignal | undefined, read: (answer: Answer) => R): Promise<R> {
    const attempt = () => this.attempt({ ...req, signal }, context, read);
    if (!this.resilience) return attempt();
    return this.resilience.execute(req.method === 'GET', attempt, req.deadline ?? Number.POSITIVE_INFINITY, signal);
  }

  /**
   * A GET through the shared reads: kept, joined, or this request's own call (then under the resilience policies,
   * which so see only real calls). Each request reads the answer's text itself, so its own reader and deviation sink
   * judge it; a joined or kept read is recorded on the request with its source, and is no call.
   */
  private async sharedRead<T>(req: UpstreamRequest<T>, context: CallContext, shared: ShareScope): Promise<T> {
    const key: ReadKey = { service: this.service, route: req.route, target: req.path + queryString(req.query), credentialHash: shared.credentialHash };
    let own: { value: T } | undefined;
    // The call's value is read by the request that makes it, inside the attempt, so an unusable body is that
    // attempt's failure (recorded, and shared with the joiners) and never a kept answer.
    const fetch = (signal: AbortSignal) => this.execute(req, context, signal, (answer) => ((own = { value: readBody(this.service, req, answer) }), answer));
    const started = performance.now();
    const read = shared.reads.read(key, fetch, { signal: req.signal, maxAgeMs: shared.maxAgeMs });
    if (read.source === 'upstream') {
      await read.answer;
      return own!.value;
    }
    traceSharedRead(this.service, req.route, read.source);
    const record = (status: number | undefined, error?: UpstreamError): void => {
      context.record?.({
        service: this.service,
        method: 'GET',
        route: req.route,
        status,
        durationMs: performance.now() - started,
        requestId: context.requestId,
        sent: false,
        source: read.source,
        ...(read.ageMs === undefined ? {} : { ageMs: read.ageMs }),
        ...(error ? { error } : {}),
      });
    };
    let answer: Answer | undefined;
    try {
      answer = await read.answer;
      const value = readBody(this.service, req, answer);
      record(answer.status);
      return value;
    } catch (err) {
      const error = transportError(this.service, err, req.signal);
      if (read.source === 'cache') shared.reads.forget(key);
      record(error.status ?? answer?.status, error);
      throw error;
    }
  }

  private async attempt<R>(req: UpstreamRequest<unknown> | IgnoredBodyRequest, context: CallContext, read: (answer: Answer) => R): Promise<R> {
    const started = performance.now();
    const wire = new WireMark();
    let status: number | undefined;
    const record = (error?: UpstreamError): void => {
      const done: UpstreamCallRecord = {
        service: this.service,
        method: req.method,
        route: req.route,
        status: error?.status ?? status,
        durationMs: performance.now() - started,
        requestId: context.requestId,
        sent: wire.written,
        source: 'upstream',
        ...(error ? { error } : {}),
      };
      context.record?.(done);
      this.options.onCall?.(done);
    };
    try {
      const ignoreSuccessBody = req.response === BODY_IGNORED;
      const answer = await this.send({ ...req, ignoreSuccessBody }, wire);
      status = answer.status;
      checkStatus(this.service, answer, context.secrets ?? []);
      const value = read(answer);
      record();
      return value;
    } catch (err) {
      const error = transportError(this.service, err, req.signal);
      record(error);
      throw error;
    }
  }
}
