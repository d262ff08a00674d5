import { Pool, type Dispatcher } from 'undici';
import type { ZodType } from 'zod';
import { InputError, UpstreamError, safeUpstreamMessage, type ServiceName } from '../errors';
import { UpstreamResilience, deadlineError, type ResilienceOptions } from './resilience';
import { NOT_JSON, type DeviationSink } from './record';
import { UUID_PATTERN, UpstreamErrorBody } from './schemas';
import { CREDENTIAL_HEADERS } from '../credentials';
import { injectTraceHeaders, traceUpstreamCall } from '../observability/tracing';
import { WireMark, markWhenWritten } from './wireSignal';

export type HttpMethod = 'GET' | 'POST' | 'PATCH';

export interface UpstreamHttpOptions {
  service: ServiceName;
  /** Base address of the service; a path prefix is kept (`https://host/api` + `/v1/x`). */
  baseUrl: string;
  /** Time to open a connection. */
  connectTimeoutMs: number;
  /** Time from sending the request to the response headers. */
  headersTimeoutMs: number;
  /** Longest silence while the body arrives. */
  bodyTimeoutMs: number;
  /** Keep-alive connections in the pool. */
  connections: number;
  /** Larger bodies are refused as a bad response, so one answer cannot exhaust memory. */
  maxResponseBytes: number;
  /** Told of every call this transport makes, whichever request made it (metrics, failure logs). */
  onCall?: (record: UpstreamCallRecord) => void;
  /** Retries, circuit breaker and bulkhead of this upstream; none when absent. */
  resilience?: Omit<ResilienceOptions, 'service'>;
}

export interface UpstreamRequest<T> {
  method: HttpMethod;
  /** The path as a template, for logs and metrics (`/checks/:id`), never with raw ids. */
  route: string;
  /** The path to call, built only from encoded, validated segments. */
  path: string;
  query?: Record<string, string | number | undefined>;
  /** Every header to send: this service's credentials and the gateway's own; nothing else is added. */
  headers: Record<string, string>;
  body?: unknown;
  /**
   * What a non-empty 2xx JSON body becomes: a zod schema checked whole, a function that makes a record of it (given
   * NOT_JSON for a body that is not JSON; it throws an UpstreamError when the body is unusable), or BODY_IGNORED when
   * a 2xx body means nothing and is not read.
   */
  response: ZodType<T> | ((body: unknown, status: number) => T) | typeof BODY_IGNORED;
  /** Aborts the call when the GraphQL request's deadline passes. */
  signal?: AbortSignal;
  /** The GraphQL request's deadline (epoch ms): retries never wait past it. */
  deadline?: number;
}

/** What one upstream call did, for the per-request log and metrics. */
export interface UpstreamCallRecord {
  service: ServiceName;
  method: HttpMethod;
  route: string;
  status?: number;
  durationMs: number;
  error?: UpstreamError;
  /** The GraphQL request that made the call (its `x-request-id`), for the failure log line. */
  requestId?: string;
  /**
   * Whether the request was written to a connection, so that the service may have received it (src/upstreams/
   * wireSignal.ts). False when it failed before: a refused connection, a connect timeout, a deadline already past.
   */
  sent?: boolean;
}

/** What a per-request client adds to every call: the gateway's own headers, the record sink, the deadline. */
export interface CallScope {
  /** Headers of the gateway's own: request id, trace context. */
  headers(): Record<string, string>;
  record?: (record: UpstreamCallRecord) => void;
  /** Aborts at the request's deadline. */
  signal?: AbortSignal;
  /** The request's deadline, epoch ms. */
  deadline?: number;
  /** Where the records of this request's answers report how they differ from the documents. */
  deviations?: DeviationSink;
}

/**
 * The `response` of an operation documented as answering a success without a body: whatever a 2xx carries (text,
 * HTML, JSON) is drained unread and the call resolves undefined, since any 2xx is a success (CONTRACT.md). Error
 * answers are still read for their code.
 */
export const BODY_IGNORED: unique symbol = Symbol('upstream body ignored');

/** A path segment from an id: raw input never goes into a path, so the id is checked here whatever the caller did. */
export function uuidSegment(value: string, field: string): string {
  if (!UUID_PATTERN.test(value)) throw new InputError(`${field} must be a UUID`, field);
  return encodeURIComponent(value);
}

/** The body of an operation that must answer with one. */
export function requireBody<T>(service: ServiceName, value: T | undefined): T {
  if (value === undefined) throw new UpstreamError(service, 'bad_response', { detail: 'the body is empty' });
  return value;
}

/** Undici error codes (and socket errnos) that mean the service did not answer in time, or could not be reached. */
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);
const UNAVAILABLE_CODES = new Set([
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_DESTROYED',
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/**
 * The transport of one upstream service: a keep-alive undici pool, time budgets, body size cap, JSON and zod
 * checks, and the translation of every failure into an UpstreamError. Redirects are never followed (undici's
 * `request` does not follow them; a 3xx is a bad response).
 */
export class UpstreamHttp {
  readonly service: ServiceName;
  private readonly pool: Pool;
  /** The pool with the interceptor that tells whether each request was written (src/upstreams/wireSignal.ts). */
  private readonly dispatcher: Dispatcher;
  private readonly prefix: string;
  readonly resilience?: UpstreamResilience;

  constructor(private readonly options: UpstreamHttpOptions) {
    this.service = options.service;
    if (options.resilience) this.resilience = new UpstreamResilience({ service: options.service, ...options.resilience });
    const base = new URL(options.baseUrl);
    this.prefix = base.pathname.replace(/\/+$/, '');
    this.pool = new Pool(base.origin, {
      connections: options.connections,
      connect: { timeout: options.connectTimeoutMs },
      headersTimeout: options.headersTimeoutMs,
      bodyTimeout: options.bodyTimeoutMs,
      keepAliveTimeout: 10_000,
      maxResponseSize: options.maxResponseBytes,
    });
    this.dispatcher = this.pool.compose(markWhenWritten);
  }

  /**
   * Calls the service under its resilience policies; resolves the parsed body, or undefined when a 2xx answer has
   * no body. Each attempt (a retry included) is one record.
   */
  call<T>(req: UpstreamRequest<T>, onRecord?: (record: UpstreamCallRecord) => void): Promise<T | undefined> {
    if (req.signal?.aborted) return Promise.reject(deadlineError(this.service));
    if (!this.resilience) return this.attempt(req, onRecord);
    return this.resilience.execute(req.method === 'GET', () => this.attempt(req, onRecord), req.deadline ?? Number.POSITIVE_INFINITY, req.signal);
  }

  private async attempt<T>(req: UpstreamRequest<T>, onRecord?: (record: UpstreamCallRecord) => void): Promise<T | undefined> {
    const started = performance.now();
    const wire = new WireMark();
    let status: number | undefined;
    try {
      const res = await traceUpstreamCall(this.service, req, () => this.send(req, wire));
      status = res.status;
      const value = this.interpret(req, res);
      this.report(this.recordOf(req, started, status, wire), onRecord);
      return value;
    } catch (err) {
      const upstreamError = this.toUpstreamError(err, req.signal);
      this.report({ ...this.recordOf(req, started, upstreamError.status ?? status, wire), error: upstreamError }, onRecord);
      throw upstreamError;
    }
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  private report(record: UpstreamCallRecord, onRecord?: (record: UpstreamCallRecord) => void): void {
    onRecord?.(record);
    this.options.onCall?.(record);
  }

  private recordOf(req: UpstreamRequest<unknown>, started: number, status: number | undefined, wire: WireMark): UpstreamCallRecord {
    return { service: this.service, method: req.method, route: req.route, status, durationMs: performance.now() - started, requestId: req.headers['x-request-id'], sent: wire.written };
  }

  private async send(req: UpstreamRequest<unknown>, wire: WireMark): Promise<Answer> {
    const headers: Record<string, string> = { accept: 'application/json', ...req.headers };
    injectTraceHeaders(headers); // traceparent of this call's span (set by traceUpstreamCall); nothing when tracing is off
    let body: string | undefined;
    if (req.body !== undefined) {
      body = JSON.stringify(req.body);
      headers['content-type'] = 'application/json';
    }
    const res = await this.dispatcher.request({
      opaque: wire,
      method: req.method,
      path: this.prefix + req.path + queryString(req.query),
      headers,
      body,
      signal: req.signal,
    });
    if (req.response === BODY_IGNORED && isSuccess(res.statusCode)) {
      // Drained so the connection can be reused; past the size cap undici closes it instead of reading on.
      await res.body.dump({ limit: this.options.maxResponseBytes, ...(req.signal ? { signal: req.signal } : {}) });
      return { status: res.statusCode, headers: res.headers, text: '' };
    }
    // The pool's maxResponseSize cuts a body past the cap (UND_ERR_RES_EXCEEDED_MAX_SIZE); undici's own text()
    // reads the rest far faster than iterating the stream chunk by chunk.
    return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
  }

  private interpret<T>(req: UpstreamRequest<T>, { status, headers, text }: Answer): T | undefined {
    if (status >= 300 && status < 400) {
      throw new UpstreamError(this.service, 'bad_response', { status, detail: 'it answered with a redirect, which the gateway does not follow' });
    }
    if (!isSuccess(status)) throw this.statusError(status, text, retryAfterMs(headers['retry-after']), credentialValues(this.service, req.headers));
    if (req.response === BODY_IGNORED || text.trim() === '') return undefined;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      // A record reader counts this deviation like any other (field `(body)`, received `not_json`).
      if (typeof req.response === 'function') return req.response(NOT_JSON, status);
      throw new UpstreamError(this.service, 'bad_response', { status, detail: 'the body is not JSON' });
    }
    if (typeof req.response === 'function') return req.response(json, status);
    const parsed = req.response.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue && issue.path.length > 0 ? `field ${formatPath(issue.path)}` : 'the body';
      throw new UpstreamError(this.service, 'bad_response', { status, detail: `${where}: ${issue?.message ?? 'wrong shape'}` });
    }
    return parsed.data;
  }

  /** `secrets`: the credentials sent on this call; an upstream message quoting one is dropped (the code is kept). */
  private statusError(status: number, text: string, retryAfter: number | undefined, secrets: readonly string[]): UpstreamError {
    let upstreamCode: number | undefined;
    let upstreamMessage: string | undefined;
    try {
      const parsed = UpstreamErrorBody.safeParse(JSON.parse(text));
      if (parsed.success) {
        const first = parsed.data.errors[0];
        const code = typeof first?.code === 'string' && /^\d+$/.test(first.code) ? Number(first.code) : first?.code;
        if (typeof code === 'number' && Number.isInteger(code)) upstreamCode = code;
        const message = safeUpstreamMessage(first?.message);
        if (message !== undefined && !quotesAny(message, secrets)) upstreamMessage = message;
      }
    } catch {
      // An error answer without a JSON body is still an error; it just carries no upstream code.
    }
    return new UpstreamError(this.service, 'status', { status, upstreamCode, upstreamMessage, retryAfterMs: retryAfter });
  }

  private toUpstreamError(err: unknown, signal: AbortSignal | undefined): UpstreamError {
    if (err instanceof UpstreamError) return err;
    if (signal?.aborted) return deadlineError(this.service);
    const code = errorCode(err);
    if ((err as Error)?.name === 'AbortError' || (code !== undefined && TIMEOUT_CODES.has(code))) {
      return new UpstreamError(this.service, 'timeout', { cause: err });
    }
    if (code !== undefined && UNAVAILABLE_CODES.has(code)) {
      return new UpstreamError(this.service, 'unavailable', { detail: 'the connection failed', connectionFailed: true, cause: err });
    }
    if (code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE') {
      return new UpstreamError(this.service, 'bad_response', { detail: 'the body is too large', cause: err });
    }
    return new UpstreamError(this.service, 'unavailable', { detail: 'the call failed', connectionFailed: true, cause: err });
  }
}

function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * Credentials shorter than this are not looked for in upstream messages: any text would "contain" them. Four is the
 * length of a STORE_PIN_CODE, which is a credential all the same.
 */
const MIN_SECRET_LENGTH = 4;

/**
 * The values of this service's credential headers among the headers of a call (names compared case-insensitively),
 * each also without an auth scheme (`Bearer abc` → `abc`), since a service that echoes a token may quote only it.
 */
function credentialValues(service: ServiceName, headers: Readonly<Record<string, string>>): string[] {
  const names = new Set(CREDENTIAL_HEADERS[service].map((name) => name.toLowerCase()));
  const values: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (!names.has(name.toLowerCase())) continue;
    const trimmed = value.trim();
    const withoutScheme = /^[A-Za-z][\w.+-]*\s+(\S.*)$/.exec(trimmed)?.[1];
    values.push(trimmed, ...(withoutScheme ? [withoutScheme] : []));
  }
  return values.filter((v) => v.length >= MIN_SECRET_LENGTH);
}

/** Case-insensitive, so a service that upper-cases what it quotes still gives nothing away. */
function quotesAny(message: string, secrets: readonly string[]): boolean {
  const text = message.toLowerCase();
  return secrets.some((secret) => text.includes(secret.toLowerCase()));
}

/** `Retry-After` as delay-seconds or an HTTP date, in ms; undefined when absent or unreadable. */
export function retryAfterMs(header: string | string[] | undefined, now = Date.now()): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Only an IMF-fixdate (RFC 9110) is a date: V8's Date.parse would read "-1" or "1.5" as a year.
  if (!/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(text)) return undefined;
  return Math.max(0, Date.parse(text) - now);
}

function errorCode(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const direct = (err as { code?: unknown }).code;
  if (typeof direct === 'string') return direct;
  const cause = (err as { cause?: unknown }).cause;
  return cause !== err ? errorCode(cause) : undefined;
}

function queryString(query: UpstreamRequest<unknown>['query']): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
  const text = params.toString();
  return text ? `?${text}` : '';
}

function formatPath(path: ReadonlyArray<PropertyKey>): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`)).join('');
}
