import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';

/**
 * What a faulty call gets instead of the service's answer:
 * `status500`, `status503`, `status503RetryAfter` (`Retry-After: 1`); `reset` (the socket destroyed unanswered);
 * `nonJson` (200 text/html); `wrongShape` (the service's answer with its record made unusable: a check's `id` a
 * number, an envelope's record a string); `hang` (no answer at all); `slowBody` (200 with half the body, then silence).
 */
export type InjectedFault = 'status500' | 'status503' | 'status503RetryAfter' | 'reset' | 'nonJson' | 'wrongShape' | 'hang' | 'slowBody';

export const ALL_FAULTS: readonly InjectedFault[] = ['status500', 'status503', 'status503RetryAfter', 'reset', 'nonJson', 'wrongShape', 'hang', 'slowBody'];

export interface FaultProxyOptions {
  /** The service behind the proxy (a sandbox service's address); can be set later through `FaultProxy.target`. */
  target?: string;
  /** Share of calls that get a fault instead of the service's answer, 0 to 1. Default 0. */
  rate?: number;
  /** The faults drawn from, evenly. Default ALL_FAULTS. */
  faults?: readonly InjectedFault[];
  /** Seed of the draws. The nth call of a given method and URL always meets the same fate, whatever the interleaving. Default 1. */
  seed?: number;
  /** Calls for which this says true always get a 500 (a record that keeps failing), whatever the rate. */
  alwaysFail?: (method: string, path: string) => boolean;
}

export interface FaultProxy {
  /** `http://127.0.0.1:<port>`, the same across refuse() and accept(). */
  url: string;
  target: string | undefined;
  rate: number;
  /** Calls received, and how many got each fault (alwaysFail's included under status500). */
  readonly stats: { calls: number; faults: Record<InjectedFault, number> };
  /** Stops listening and cuts every connection: calls are refused, as by a service that is down. */
  refuse(): Promise<void>;
  /** Listens again on the same port. */
  accept(): Promise<void>;
  close(): Promise<void>;
}

/** A fault-injecting proxy in front of a service, on 127.0.0.1: tests and the load check put it between gateway and sandbox. */
export async function startFaultProxy(options: FaultProxyOptions = {}): Promise<FaultProxy> {
  const faults = options.faults ?? ALL_FAULTS;
  const seed = options.seed ?? 1;
  const seen = new Map<string, number>();
  const stats = { calls: 0, faults: Object.fromEntries(ALL_FAULTS.map((f) => [f, 0])) as Record<InjectedFault, number> };
  const state = { target: options.target, rate: options.rate ?? 0, pool: undefined as Pool | undefined, poolOf: '' };

  const pool = (): Pool => {
    if (!state.target) throw new Error('the fault proxy has no target yet');
    if (state.poolOf !== state.target) {
      void state.pool?.close();
      state.pool = new Pool(state.target, { connections: 64 });
      state.poolOf = state.target;
    }
    return state.pool!;
  };

  const fateOf = (method: string, url: string, path: string): InjectedFault | undefined => {
    if (options.alwaysFail?.(method, path)) return 'status500';
    const key = `${method} ${url}`;
    const nth = seen.get(key) ?? 0;
    seen.set(key, nth + 1);
    if (unitDraw(seed, key, nth, 0) >= state.rate) return undefined;
    return faults[Math.floor(unitDraw(seed, key, nth, 1) * faults.length)];
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    stats.calls += 1;
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const fault = fateOf(method, url, url.split('?')[0]);
    if (fault) stats.faults[fault] += 1;
    if (fault === 'reset') return void req.socket.destroy();
    if (fault === 'hang') return;
    if (fault === 'status500' || fault === 'status503' || fault === 'status503RetryAfter') {
      if (fault === 'status503RetryAfter') res.setHeader('retry-after', '1');
      return void sendJson(res, fault === 'status500' ? 500 : 503, { errors: [{ message: 'Injected fault' }] });
    }
    if (fault === 'nonJson') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Maintenance</body></html>');
    const answer = await forward(pool(), req, method, url);
    if (res.destroyed) return;
    if (fault === 'wrongShape' && answer.status === 200) return void sendJson(res, 200, wrongShape(answer.body));
    const headers: Record<string, string | number> = { 'content-length': answer.body.length };
    if (answer.contentType) headers['content-type'] = answer.contentType;
    res.writeHead(answer.status, headers);
    if (fault === 'slowBody') return void res.write(answer.body.subarray(0, Math.floor(answer.body.length / 2)));
    res.end(answer.body);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  await listen(server, 0);
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    get target() {
      return state.target;
    },
    set target(value) {
      state.target = value;
    },
    get rate() {
      return state.rate;
    },
    set rate(value) {
      state.rate = value;
    },
    stats,
    refuse: () => stop(server),
    accept: () => listen(server, port),
    async close() {
      await stop(server);
      await state.pool?.close();
    },
  };
}

/** A draw in [0, 1) from the seed, the call's key, its occurrence and which draw of it (FNV-1a, then a finaliser). */
function unitDraw(seed: number, key: string, nth: number, which: number): number {
  let h = 0x811c9dc5 ^ seed;
  const text = `${key}#${nth}#${which}`;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return ((h ^ (h >>> 16)) >>> 0) / 2 ** 32;
}

/** The record made unusable: a record's own `id` a number, or an envelope's record (or list) a string. */
function wrongShape(body: Buffer): unknown {
  const json = JSON.parse(body.toString('utf8')) as unknown;
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return 'not a record';
  const record = json as Record<string, unknown>;
  if ('id' in record) return { ...record, id: 42 };
  const key = Object.keys(record).find((k) => typeof record[k] === 'object' && record[k] !== null);
  return key ? { ...record, [key]: 'wrong' } : { ...record, id: 42 };
}

interface Answer {
  status: number;
  contentType: string | undefined;
  body: Buffer;
}

/** The headers that decide what the sandbox answers: the credentials and the body's type. */
const FORWARDED = ['reservation-access-token', 'authorization', 'employee_token', 'store_pin_code', 'slug_name', 'pos-access-token', 'content-type', 'accept'];

async function forward(pool: Pool, req: IncomingMessage, method: string, path: string): Promise<Answer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers: Record<string, string> = {};
  for (const name of FORWARDED) {
    const value = req.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
  const res = await pool.request({ method, path, headers, body });
  const contentType = res.headers['content-type'];
  return { status: res.statusCode, contentType: typeof contentType === 'string' ? contentType : undefined, body: Buffer.from(await res.body.arrayBuffer()) };
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function stop(server: Server): Promise<void> {
  if (!server.listening) return Promise.resolve();
  return new Promise((resolve) => {
    server.close(() => resolve());
    // Hung calls and keep-alive connections would keep close() waiting.
    server.closeAllConnections();
  });
}
