import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { startSandbox, type Sandbox } from '../src/sandbox';
import { tenantByPosToken, tenantByReservationToken } from '../src/sandbox/credentials';

/**
 * Fast local upstreams for the benchmark: the sandbox services' records (realistic, full), answered from memory.
 * Each front server asks the sandbox once per distinct request and then replays the exact bytes, so what the
 * upstreams cost per call is a lookup and a write, the same for the gateway and the baseline. A write is replayed
 * too: every createReservation answers with the one reservation the sandbox created first.
 */
export interface BenchUpstreams {
  /** Answering at once. */
  fast: UpstreamPair;
  /** Answering after `slowDelayMs` (S2's 20 ms). */
  slow: UpstreamPair;
  /** Calls received per service since the last reset, fast and slow servers together. */
  calls(): CallCounts;
  resetCalls(): void;
  sandbox: Sandbox;
  close(): Promise<void>;
}

export interface UpstreamPair {
  reservationUrl: string;
  posUrl: string;
}

export interface CallCounts {
  reservation: number;
  pos: number;
  /** Calls by the sample venue whose token they carried (S4 tells one venue's screens from the others). */
  byVenue: Record<string, number>;
  /** Distinct credential values the calls carried (S1d and S2d: one per connection, so nothing could be shared). */
  credentials: number;
}

export interface BenchUpstreamsOptions {
  /** The clock of the sample data, so every run serves the same records. */
  now: Date;
  /** Default 20 ms. */
  slowDelayMs?: number;
}

/** The control routes; the gateway never calls them, so they never count as calls. */
export const CONTROL_PATH = '/__bench/calls';

interface Answer {
  status: number;
  contentType: string | undefined;
  body: Buffer;
}

/** The headers that decide what the sandbox answers: the credentials, and the body's type. */
const FORWARDED = ['reservation-access-token', 'authorization', 'employee_token', 'store_pin_code', 'slug_name', 'pos-access-token', 'content-type'];

/**
 * S1d and S2d: each connection sends its venue's credentials with a suffix of its own (`connectionCredential`), so
 * the server under test sees a distinct caller per connection and can share nothing between them. The upstreams
 * read the venue's credential under it and answer its records, the same bytes as for the bare credential.
 */
const CONNECTION_SUFFIX = /\.c\d+$/;

/** A venue's credential value as connection `n` of S1d or S2d sends it. */
export function connectionCredential(value: string, n: number): string {
  return `${value}.c${n}`;
}

export async function startBenchUpstreams(options: BenchUpstreamsOptions): Promise<BenchUpstreams> {
  const sandbox = await startSandbox({ now: options.now, recordRequests: false });
  const counts: CallCounts = { reservation: 0, pos: 0, byVenue: {}, credentials: 0 };
  const credentialsSeen = new Set<string>();
  const slowDelayMs = options.slowDelayMs ?? 20;
  const pools = { reservation: new Pool(sandbox.reservationUrl), pos: new Pool(sandbox.posUrl) };
  const caches = { reservation: new Map<string, Promise<Answer>>(), pos: new Map<string, Promise<Answer>>() };

  const front = (service: 'reservation' | 'pos', delayMs: number): Server =>
    createServer((req, res) => {
      if (req.url === CONTROL_PATH) return sendControl(req, res);
      counts[service] += 1;
      const token = req.headers[service === 'pos' ? 'pos-access-token' : 'reservation-access-token'];
      if (typeof token === 'string' && !credentialsSeen.has(token)) {
        credentialsSeen.add(token);
        counts.credentials = credentialsSeen.size;
      }
      const headers = venueHeaders(req);
      const venue = (service === 'pos' ? tenantByPosToken(headers) : tenantByReservationToken(headers)) ?? 'none';
      counts.byVenue[venue] = (counts.byVenue[venue] ?? 0) + 1;
      readBody(req)
        .then((body) => answerOf(caches[service], pools[service], req, headers, body))
        .then((answer) => (delayMs > 0 ? setTimeout(send, delayMs, res, answer) : send(res, answer)))
        .catch(() => res.destroy());
    });

  function sendControl(req: IncomingMessage, res: ServerResponse): void {
    if (req.method === 'DELETE') reset();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(counts));
  }

  function reset(): void {
    counts.reservation = counts.pos = counts.credentials = 0;
    counts.byVenue = {};
    credentialsSeen.clear();
  }

  const servers = [front('reservation', 0), front('pos', 0), front('reservation', slowDelayMs), front('pos', slowDelayMs)];
  const [fastRes, fastPos, slowRes, slowPos] = await Promise.all(servers.map(listen));
  return {
    fast: { reservationUrl: fastRes, posUrl: fastPos },
    slow: { reservationUrl: slowRes, posUrl: slowPos },
    calls: () => ({ ...counts, byVenue: { ...counts.byVenue } }),
    resetCalls: reset,
    sandbox,
    close: async () => {
      await Promise.all(servers.map(closeServer));
      await Promise.all([pools.reservation.close(), pools.pos.close()]);
      await sandbox.close();
    },
  };
}

/** The headers the sandbox decides on, each credential read as its venue's (a connection's suffix dropped). */
function venueHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of FORWARDED) {
    const value = req.headers[name];
    if (typeof value === 'string') headers[name] = value.replace(CONNECTION_SUFFIX, '');
  }
  return headers;
}

/** Reads are keyed by path and credentials; writes by path and credentials alone, so every write gets one answer. */
function answerOf(cache: Map<string, Promise<Answer>>, pool: Pool, req: IncomingMessage, headers: Record<string, string>, body: Buffer): Promise<Answer> {
  const key = `${req.method} ${req.url} ${JSON.stringify(headers)}`;
  let answer = cache.get(key);
  if (!answer) {
    answer = ask(pool, req.method ?? 'GET', req.url ?? '/', headers, body);
    cache.set(key, answer);
    answer.catch(() => cache.delete(key));
  }
  return answer;
}

async function ask(pool: Pool, method: string, path: string, headers: Record<string, string>, body: Buffer): Promise<Answer> {
  const res = await pool.request({ method: method, path, headers, body: body.length > 0 ? body : undefined });
  const contentType = res.headers['content-type'];
  return { status: res.statusCode, contentType: typeof contentType === 'string' ? contentType : undefined, body: Buffer.from(await res.body.arrayBuffer()) };
}

function send(res: ServerResponse, answer: Answer): void {
  if (res.destroyed) return;
  const headers: Record<string, string | number> = { 'content-length': answer.body.length };
  if (answer.contentType) headers['content-type'] = answer.contentType;
  res.writeHead(answer.status, headers).end(answer.body);
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
