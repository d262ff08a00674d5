import type { Dispatcher, Pool as UndiciPool } from 'undici';
import { codeOf, nameOf } from '../errors/errorFields';
import { UpstreamError, type ServiceName } from '../errors/UpstreamError';
import { isSuccess } from './assumptions';
import type { CallSignal } from './callSignal';

/**
 * undici's `Pool` module on its own: `require('undici')` loads all of undici (fetch, WebSocket, caches, mocks, …: 110
 * modules) where the pool needs 22 (what that saves: docs/performance.md, "Less loaded and less kept at start"). The
 * path is undici's own file (the package has no exports map), pinned by package-lock.json; a test
 * (test/upstreams/transport.test.ts) checks it is the class undici exports, so a version that moves it fails there.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a file of undici's, not its typed entry point
const Pool = require('undici/lib/dispatcher/pool') as typeof UndiciPool;

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
  signal?: CallSignal;
  /** A 2xx body means nothing here: drained unread so the connection can be reused. */
  ignoreSuccessBody: boolean;
}

/** An answer as it came: status, headers and the body's text (empty when drained). */
export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body's length in bytes as it came (a kept answer is counted by it, without measuring the text again). */
  bytes: number;
  /**
   * The text parsed, once a reading has parsed it (src/upstreams/answer.ts): every request that joined the read of
   * this answer reads the one parse (records never change what they wrap). Absent: not parsed yet.
   */
  json?: unknown;
}

/** Sends one request; `wire` is marked once the request is written. */
export type Send = (req: TransportRequest, wire: WireMark) => Promise<Answer>;

/** Behaviour wrapped around a Send, as undici composes interceptors onto a dispatcher (tracing). */
export type SendLayer = (next: Send) => Send;

/** Set once an attempt is written to a connection: the service may have received it (the idempotency step keys on it). */
export class WireMark {
  written = false;
}

/** Undici codes and socket errnos of no answer in time; other failures without an answer are failed connections. */
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);
const CONNECTION_CODES = new Set(['UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'UND_ERR_DESTROYED', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/** One upstream's keep-alive pool with time budgets and a body size cap; redirects are never followed. */
export class UpstreamTransport {
  private readonly pool: UndiciPool;
  private readonly prefix: string;

  constructor(options: TransportOptions) {
    const base = new URL(options.baseUrl);
    this.prefix = base.pathname.replace(/\/+$/, '');
    this.pool = new Pool(base.origin, {
      connections: options.connections,
      connect: { timeout: options.connectTimeoutMs },
      headersTimeout: options.headersTimeoutMs,
      bodyTimeout: options.bodyTimeoutMs,
      keepAliveTimeout: 10_000,
      // Past the cap undici's parser fails the answer (UND_ERR_RES_EXCEEDED_MAX_SIZE) and closes the connection.
      maxResponseSize: options.maxResponseBytes,
    });
  }

  send(req: TransportRequest, wire: WireMark): Promise<Answer> {
    if (req.signal?.aborted) return Promise.reject(abortReason(req.signal));
    const headers: Record<string, string> = { accept: 'application/json', ...req.headers };
    let body: string | undefined;
    if (req.body !== undefined) {
      body = JSON.stringify(req.body);
      headers['content-type'] = 'application/json';
    }
    return new Promise((resolve, reject) => {
      const reader = new AnswerReader(req, wire, resolve, reject);
      this.pool.dispatch({ method: req.method, path: this.prefix + req.path + queryString(req.query), headers, body }, reader);
    });
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

/**
 * One call's answer, read straight from undici's dispatch: no body stream, as every answer is read whole (undici's
 * `request()` made a stream and a handler of its own for each call; what that cost is in `docs/performance.md`).
 */
class AnswerReader implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  private status = 0;
  private headers: Answer['headers'] = {};
  private chunks: Buffer[] = [];
  private signal: CallSignal | undefined;
  private readonly ignoreSuccessBody: boolean;

  constructor(
    req: Pick<TransportRequest, 'signal' | 'ignoreSuccessBody'>,
    private wire: WireMark | undefined,
    private resolve: ((answer: Answer) => void) | undefined,
    private reject: ((err: unknown) => void) | undefined,
  ) {
    this.signal = req.signal;
    this.ignoreSuccessBody = req.ignoreSuccessBody;
    this.signal?.addEventListener('abort', this);
  }

  /** The signal fired: the call stops now, whether it is queued for a connection, written, or its body arriving. */
  handleEvent(): void {
    const reason = abortReason(this.signal);
    this.controller?.abort(reason);
    this.outcome()?.reject(reason);
    this.finish();
  }

  // Undici calls this on a connected socket just before writing, and nowhere else (not on a failed connect).
  onRequestStart(controller: Dispatcher.DispatchController): void {
    // Failed while it waited for a connection (its deadline passed): never written.
    if (!this.wire) return controller.abort(abortReason(this.signal));
    this.controller = controller;
    this.wire.written = true;
  }

  onResponseStart(_controller: Dispatcher.DispatchController, status: number, headers: Answer['headers']): void {
    this.status = status;
    this.headers = headers;
    this.chunks = [];
    // A 2xx body that means nothing is answered now and drained unread, so the connection can be reused; past the
    // size cap undici closes the connection instead, and the deadline still cuts a body that trickles on.
    if (this.ignoreSuccessBody && isSuccess(status)) this.outcome()?.resolve({ status, headers, text: '', bytes: 0, json: undefined });
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.resolve) this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    const { status, headers, chunks } = this;
    const outcome = this.outcome();
    this.finish();
    if (!outcome) return;
    const body = chunks.length === 0 ? undefined : chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
    const text = body ? body.toString('utf8') : '';
    // As undici's body.text(): a byte order mark (three bytes in UTF-8) is not part of the text.
    const bom = text.charCodeAt(0) === 0xfeff;
    outcome.resolve({ status, headers, text: bom ? text.slice(1) : text, bytes: (body?.length ?? 0) - (bom ? 3 : 0), json: undefined });
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    this.outcome()?.reject(err);
    this.finish();
  }

  /**
   * The call's outcome, once; undefined once given. Undici may hold a finished call's handler until its connection
   * serves the next one, so nothing of the answer stays here: kept, it survived young-generation collections.
   */
  private outcome(): { resolve: (answer: Answer) => void; reject: (err: unknown) => void } | undefined {
    const { resolve, reject } = this;
    if (!resolve || !reject) return undefined;
    this.wire = this.resolve = this.reject = undefined;
    this.chunks = [];
    this.headers = {};
    return { resolve, reject };
  }

  /** The call is over on the wire too: no listener left on the request's signal. */
  private finish(): void {
    this.signal?.removeEventListener('abort', this);
    this.signal = this.controller = undefined;
  }
}

function abortReason(signal: CallSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new Error('the call was aborted');
}

/** Any failure of a call as an UpstreamError, by undici's stable error codes. */
export function transportError(service: ServiceName, err: unknown, signal: CallSignal | undefined): UpstreamError {
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
