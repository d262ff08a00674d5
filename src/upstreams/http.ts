import { InputError } from '../errors/InputError';
import { tracedSend } from '../observability/tracing';
import type { UpstreamError, ServiceName } from '../errors/UpstreamError';
import { BODY_IGNORED, checkStatus, readBody, type BodyReader } from './answer';
import type { UpstreamCallRecord, UpstreamEvents } from './events';
import type { DeviationSink } from './record';
import { UpstreamResilience, type ResilienceOptions } from './resilience';
import { UUID_PATTERN } from './schemas';
import { UpstreamTransport, deadlineError, transportError, type Send, type TransportOptions, type TransportRequest } from './transport';
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
}

/** What one call carries besides the request itself, from the request that makes it. */
export interface CallContext {
  /** Told of each attempt. */
  record?: (record: UpstreamCallRecord) => void;
  /** The GraphQL request's id, put on each record. */
  requestId?: string;
  /** The credential values sent on the call (ServiceCredentials.secrets()): never quoted back in an error. */
  secrets?: readonly string[];
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
    const attempt = () => this.attempt(req, context);
    if (!this.resilience) return attempt();
    return this.resilience.execute(req.method === 'GET', attempt, req.deadline ?? Number.POSITIVE_INFINITY, req.signal);
  }

  close(): Promise<void> {
    return this.transport.close();
  }

  private async attempt<T>(req: UpstreamRequest<T> | IgnoredBodyRequest, context: CallContext): Promise<T | undefined> {
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
      const value = req.response === BODY_IGNORED ? undefined : readBody(this.service, req, answer);
      record();
      return value;
    } catch (err) {
      const error = transportError(this.service, err, req.signal);
      record(error);
      throw error;
    }
  }
}
