import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

/** One request as a sandbox service received it. */
export interface RecordedRequest {
  service: 'reservation' | 'pos';
  method: string;
  /** Path with query string, as received. */
  path: string;
  /** As received (lower-cased names); the very object node parsed, not a copy. */
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON, or undefined when there was no body or it was not JSON. */
  body: unknown;
}

/** What a service handler sees. */
export interface SandboxRequest {
  method: string;
  pathname: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** Parsed JSON; undefined when there was no body. */
  body: unknown;
  /** True when a body was sent that is not JSON. */
  bodyNotJson: boolean;
}

/** A handler's answer; without `body` the response has no body at all. */
export interface SandboxReply {
  status: number;
  body?: unknown;
}

export type SandboxHandler = (request: SandboxRequest) => SandboxReply;

export interface ServiceOptions {
  /** Every response waits this long first (the benchmark uses 20). Default 0. */
  delayMs?: number;
  /** Called with every request received, before it is handled. Default: none. */
  record?: (request: RecordedRequest) => void;
  /** Larger bodies get 413 without being parsed. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Called before each request is handled (the evening catching up with the clock). Default: none. */
  beforeHandle?: () => void;
}

const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

export function errorsBody(message: string, code?: number): { errors: Array<{ message: string; code?: number }> } {
  return { errors: [code === undefined ? { message } : { message, code }] };
}

export function errorReply(status: number, message: string, code?: number): SandboxReply {
  return { status, body: errorsBody(message, code) };
}

/** A node:http server (not listening) that reads JSON, records, waits, and sends what the handler answers. */
export function createJsonServer(service: RecordedRequest['service'], handle: SandboxHandler, options: ServiceOptions = {}): Server {
  const maxBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const respond = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const raw = await readBody(req, maxBytes);
    const parsed = raw === TOO_LARGE ? undefined : parseJson(raw);
    const body = typeof parsed === 'object' ? parsed.value : undefined;
    options.record?.({ service, method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body });
    if (options.delayMs) await sleep(options.delayMs);
    const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
    options.beforeHandle?.();
    const reply = raw === TOO_LARGE
      ? errorReply(413, 'Request body is too large', 413)
      : handle({
        method: req.method ?? 'GET', pathname: url.pathname, query: url.searchParams, headers: req.headers,
        body, bodyNotJson: parsed === 'not-json',
      });
    send(res, reply);
  };
  return createServer((req, res) => {
    respond(req, res).catch(() => {
      // A handler bug must not hang the client: answer 500 if we still can.
      if (!res.headersSent) send(res, errorReply(500, 'Internal sandbox error', 500));
      else res.destroy();
    });
  });
}

function send(res: ServerResponse, reply: SandboxReply): void {
  if (res.destroyed) return;
  if (reply.body === undefined) {
    res.writeHead(reply.status, { 'content-length': '0' }).end();
    return;
  }
  const text = JSON.stringify(reply.body);
  res.writeHead(reply.status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
  }).end(text);
}

/** What readBody gives for a body past its bound. */
const TOO_LARGE: unique symbol = Symbol('too large');

/** The body as text; past maxBytes the rest is drained unread so the connection stays usable. */
function readBody(req: IncomingMessage, maxBytes: number): Promise<string | typeof TOO_LARGE> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
    });
    // 'close' also ends a request the client aborted; its reply then goes nowhere (send checks).
    const finish = () => resolve(size > maxBytes ? TOO_LARGE : Buffer.concat(chunks).toString('utf8'));
    req.on('end', finish);
    req.on('close', finish);
    req.on('error', reject);
  });
}

function parseJson(text: string): { value: unknown } | undefined | 'not-json' {
  if (text.trim() === '') return undefined;
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return 'not-json';
  }
}

