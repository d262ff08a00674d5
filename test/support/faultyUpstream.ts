import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkRecord, employeeRecord, pageMeta, reservationRecord } from './fixtures';
import { closedPort, sendJson, startScriptedServer, type ScriptedServer } from './upstreamServer';

/**
 * How the faulty upstream answers:
 * - `ok`: a valid record for the POS and reservation read routes and POST /v1/reservations (fixtures);
 * - `hang`: never answers; `slowBody`: headers and half the body, then silence;
 * - `status500`, `status503` (no Retry-After), `status503RetryAfter` (`Retry-After: 1`), `status400`, `status404`;
 * - `reset`: destroys the socket; `nonJson`: 200 text/html; `wrongShape`: 200 JSON with one field missing or mistyped
 *   (see WRONG_SHAPE_FIELD), which fails that field alone; `unusable`: 200 JSON the gateway cannot use at all (a
 *   record without its id, a list body that is an array); `redirect`: 302 to the redirect target, a second server
 *   that records any hit;
 * - `hold`: waits until `release()`, then answers as `ok`.
 */
export type FaultMode =
  | 'ok'
  | 'hang'
  | 'slowBody'
  | 'status500'
  | 'status503'
  | 'status503RetryAfter'
  | 'status400'
  | 'status404'
  | 'reset'
  | 'nonJson'
  | 'wrongShape'
  | 'unusable'
  | 'redirect'
  | 'hold';

/** The field a `wrongShape` answer breaks, by route, as the gateway names it (`field <path>`, no list indexes). */
export const WRONG_SHAPE_FIELD = {
  check: 'alias',
  employees: 'employees.first_name',
  reservation: 'reservation.guest_count',
  reservations: 'reservations.guest_count',
} as const;

export interface FaultyRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  /** `performance.now()` when the request arrived. */
  at: number;
  mode: FaultMode;
}

export interface FaultyUpstream {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** How the next requests are answered (after any queued modes). */
  mode: FaultMode;
  /** Modes for the next requests, one each, before `mode` applies again. */
  queue(...modes: FaultMode[]): void;
  /** Every request, in arrival order. */
  requests: FaultyRequest[];
  /** Requests seen for `method` and `path` (`path` without query); any path when omitted. */
  count(method: string, path?: string): number;
  /** The server the `redirect` mode points at; it must never be hit. */
  redirectTarget: ScriptedServer;
  /** Answers every held request as `ok`, and switches `mode` from `hold` to `ok`. */
  release(): void;
  /** Forgets the requests, empties the queue, back to `ok`. */
  reset(): void;
  close(): Promise<void>;
}

const CHECK_PATH = /^\/checks\/([^/]+)$/;
const RESERVATION_PATH = /^\/v1\/reservations\/([^/]+)$/;

/** A fault-injecting stand-in for either upstream service, on 127.0.0.1 port 0. */
export async function startFaultyUpstream(initial: FaultMode = 'ok'): Promise<FaultyUpstream> {
  const redirectTarget = await startScriptedServer((_req, res) => sendJson(res, 200, {}));
  const requests: FaultyRequest[] = [];
  const queued: FaultMode[] = [];
  const held: Array<() => void> = [];
  const state = { mode: initial };

  const server: Server = createServer((req, res) => {
    // The body is drained first so that a fault is about the answer, never about an unread request.
    req.resume();
    req.on('end', () => {
      const mode = queued.shift() ?? state.mode;
      const path = (req.url ?? '/').split('?')[0];
      requests.push({ method: req.method ?? '', path, at: performance.now(), mode });
      answer(mode, req, res, path);
    });
  });

  function answer(mode: FaultMode, req: IncomingMessage, res: ServerResponse, path: string): void {
    switch (mode) {
      case 'ok':
        return sendOk(req, res, path);
      case 'hang':
        return;
      case 'slowBody': {
        const text = JSON.stringify(okBody(req.method ?? 'GET', path) ?? { pad: 'x'.repeat(64) });
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
        res.write(text.slice(0, Math.floor(text.length / 2)));
        return;
      }
      case 'status500':
        return sendJson(res, 500, { errors: [{ message: 'Internal error' }] });
      case 'status503':
        return sendJson(res, 503, { errors: [{ message: 'Service unavailable' }] });
      case 'status503RetryAfter':
        res.setHeader('retry-after', '1');
        return sendJson(res, 503, { errors: [{ message: 'Service unavailable' }] });
      case 'status400':
        return sendJson(res, 400, { errors: [{ message: 'Bad request' }] });
      case 'status404':
        return sendJson(res, 404, { errors: [{ message: 'Not found' }] });
      case 'reset':
        req.socket.destroy();
        return;
      case 'nonJson':
        res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Maintenance</body></html>');
        return;
      case 'wrongShape':
        return sendJson(res, 200, wrongShapeBody(req.method ?? 'GET', path));
      case 'unusable':
        return sendJson(res, 200, unusableBody(path));
      case 'redirect':
        res.writeHead(302, { location: `${redirectTarget.url}/stolen${req.url ?? '/'}` }).end();
        return;
      case 'hold':
        held.push(() => sendOk(req, res, path));
        return;
    }
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    get mode() {
      return state.mode;
    },
    set mode(mode: FaultMode) {
      state.mode = mode;
    },
    queue: (...modes) => void queued.push(...modes),
    requests,
    count: (method, path) => requests.filter((r) => r.method === method && (path === undefined || r.path === path)).length,
    redirectTarget,
    release() {
      if (state.mode === 'hold') state.mode = 'ok';
      for (const answerHeld of held.splice(0)) answerHeld();
    },
    reset() {
      requests.length = 0;
      queued.length = 0;
      state.mode = 'ok';
    },
    async close() {
      held.length = 0;
      await Promise.all([
        new Promise<void>((resolve, reject) => {
          server.close((err) => (err ? reject(err) : resolve()));
          // Hung and held requests would keep close() waiting forever.
          server.closeAllConnections();
        }),
        redirectTarget.close(),
      ]);
    },
  };
}

/** An address where nothing listens: connecting is refused. */
export async function refusedUrl(): Promise<string> {
  return `http://127.0.0.1:${await closedPort()}`;
}

function sendOk(req: IncomingMessage, res: ServerResponse, path: string): void {
  const method = req.method ?? 'GET';
  const body = okBody(method, path);
  if (body !== undefined) return sendJson(res, 200, body);
  // PATCH /v1/reservation-payments and the off-day operation answer 200 without a body.
  if (method === 'PATCH' || method === 'POST') return sendJson(res, 200);
  sendJson(res, 404, { errors: [{ message: 'Not found' }] });
}

/** A valid body for the routes this stand-in knows, undefined for the others. */
function okBody(method: string, path: string): unknown {
  const check = CHECK_PATH.exec(path);
  const reservation = RESERVATION_PATH.exec(path);
  if (method === 'GET' && check) return checkRecord({ id: decodeURIComponent(check[1]) });
  if (method === 'GET' && path === '/employees') return { employees: [employeeRecord()], meta: pageMeta() };
  if (method === 'GET' && reservation) return { reservation: reservationRecord({ id: decodeURIComponent(reservation[1]) }) };
  if (method === 'GET' && path === '/v1/reservations') return { reservations: [reservationRecord()], meta: pageMeta() };
  if (method === 'POST' && path === '/v1/reservations') return { reservation: reservationRecord() };
  return undefined;
}

/** A body with exactly one field broken (see WRONG_SHAPE_FIELD), so the gateway has one field to name. */
function wrongShapeBody(method: string, path: string): unknown {
  const check = CHECK_PATH.exec(path);
  if (check) {
    const { alias: _missing, ...withoutAlias } = checkRecord({ id: decodeURIComponent(check[1]) });
    return withoutAlias;
  }
  if (path === '/employees') return { employees: [{ ...employeeRecord(), first_name: 7 }], meta: pageMeta() };
  if (path === '/v1/reservations' && method === 'GET') return { reservations: [{ ...reservationRecord(), guest_count: 'four' }], meta: pageMeta() };
  return { reservation: { ...reservationRecord(), guest_count: 'four' } };
}

/** A body the gateway cannot use at all: a record without its id, or a list answered as an array. */
function unusableBody(path: string): unknown {
  if (path === '/employees' || path === '/v1/reservations') return [];
  if (CHECK_PATH.exec(path)) {
    const { id: _id, ...withoutId } = checkRecord();
    return withoutId;
  }
  const { id: _id, ...withoutId } = reservationRecord();
  return { reservation: withoutId };
}
