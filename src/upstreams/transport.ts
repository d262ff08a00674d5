import { Pool, type Dispatcher } from 'undici';
import { codeOf, nameOf } from '../errors/errorFields';
import { UpstreamError, type ServiceName } from '../errors/UpstreamError';
import { isSuccess } from './assumptions';

export type HttpMethod = 'GET' | 'POST' | 'PATCH';

/** The GraphQL request's own time budget ran out: a timeout that says nothing of the upstream's health. */
export function deadlineError(service: ServiceName): UpstreamError {
  return new UpstreamError(service, 'timeout', { detail: "the request's time budget ran out", deadlineExceeded: true });
}

export interface TransportOptions {
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
}

export interface TransportRequest {
  method: HttpMethod;
  /** The path as a template (`/checks/:id`), for spans, logs and metrics: never with raw ids. */
  route: string;
  /** The path to call, built only from encoded, validated segments. */
  path: string;
  query?: Record<string, string | number | undefined>;
  /** Every header but `accept` and `content-type`, which the transport adds. */
  headers: Record<string, string>;
  body?: unknown;
  /** Aborts the call when the GraphQL request's deadline passes. */
  signal?: AbortSignal;
  /** A 2xx body means nothing here: drained unread so the connection can be reused. */
  ignoreSuccessBody: boolean;
}

/** An answer as it came: status, headers and the body's text (empty when drained). */
export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** Sends one request; `wire` is marked once the request is written. */
export type Send = (req: TransportRequest, wire: WireMark) => Promise<Answer>;

/** Behaviour wrapped around a Send, as undici composes interceptors onto a dispatcher (tracing). */
export type SendLayer = (next: Send) => Send;

/** Set once an attempt is written to a connection: the service may have received it (the idempotency step keys on it). */
export class WireMark {
  written = false;
}

// Undici calls `onRequestStart` on a connected socket just before writing, and nowhere else (not on a failed connect).
const markWhenWritten: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (opts, handler) => {
  // `request()` hands its options to `dispatch` as given, `opaque` included, though DispatchOptions does not type it.
  const mark = 'opaque' in opts ? opts.opaque : undefined;
  if (mark instanceof WireMark) {
    // The handler is this request's own (undici makes one per dispatch), so its start is wrapped in place.
    const start = handler.onRequestStart?.bind(handler);
    handler.onRequestStart = (controller, context) => {
      start?.(controller, context);
      // A request whose signal fired while it waited for a connection is aborted here, before a byte is written.
      if (!controller.aborted) mark.written = true;
    };
  }
  return dispatch(opts, handler);
};

/** Undici codes and socket errnos of no answer in time; other failures without an answer are failed connections. */
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);
const CONNECTION_CODES = new Set(['UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'UND_ERR_DESTROYED', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/** One upstream's keep-alive pool with time budgets and a body size cap; redirects are never followed. */
export class UpstreamTransport {
  private readonly pool: Pool;
  private readonly dispatcher: Dispatcher;
  private readonly prefix: string;

  constructor(private readonly options: TransportOptions) {
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

  async send(req: TransportRequest, wire: WireMark): Promise<Answer> {
    const headers: Record<string, string> = { accept: 'application/json', ...req.headers };
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
    if (req.ignoreSuccessBody && isSuccess(res.statusCode)) {
      // Past the size cap undici closes the connection instead of draining on.
      await res.body.dump({ limit: this.options.maxResponseBytes, ...(req.signal ? { signal: req.signal } : {}) });
      return { status: res.statusCode, headers: res.headers, text: '' };
    }
    // Past the cap the pool's maxResponseSize fails the read (UND_ERR_RES_EXCEEDED_MAX_SIZE).
    return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

/** Any failure of a call as an UpstreamError, by undici's stable error codes. */
export function transportError(service: ServiceName, err: unknown, signal: AbortSignal | undefined): UpstreamError {
  if (err instanceof UpstreamError) return err;
  if (signal?.aborted) return deadlineError(service);
  const code = errorCode(err);
  if (nameOf(err) === 'AbortError' || (code !== undefined && TIMEOUT_CODES.has(code))) {
    return new UpstreamError(service, 'timeout', { cause: err });
  }
  if (code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE') {
    return new UpstreamError(service, 'bad_response', { detail: 'the body is too large', cause: err });
  }
  const detail = code !== undefined && CONNECTION_CODES.has(code) ? 'the connection failed' : 'the call failed';
  return new UpstreamError(service, 'unavailable', { detail, connectionFailed: true, cause: err });
}

/** The code of the error or of the nearest cause that has one (undici wraps socket errors in its own). */
function errorCode(err: unknown, depth = 0): string | undefined {
  if (typeof err !== 'object' || err === null || depth > 8) return undefined;
  return codeOf(err) ?? ('cause' in err ? errorCode(err.cause, depth + 1) : undefined);
}

/** `?a=1&b=2` of the defined values, or nothing. */
export function queryString(query: TransportRequest['query']): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
  const text = params.toString();
  return text ? `?${text}` : '';
}
