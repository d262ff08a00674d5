import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { createSampleState, SAMPLE } from '../../src/sandbox';
import { createPosService } from '../../src/sandbox/posService';
import { createReservationService } from '../../src/sandbox/reservationService';

/**
 * The chaos run's upstreams, in a process of their own: the sandbox's reservation and POS services over one sample
 * state, and in front of the reservation service one small proxy per gateway slot, which holds every POST for
 * CHAOS_BOOKING_DELAY_MS before passing it on (a slow booking service, so a killed gateway has bookings in flight).
 * A POST the proxy has received is passed on even when its gateway has gone meanwhile: it reached the upstream.
 *
 * Prints one JSON line (UpstreamsAddresses), then serves until SIGTERM. Its control address answers
 * `GET /inflight` (POSTs held per slot) and `GET /report` (UpstreamsReport).
 */
export interface UpstreamsAddresses {
  /** RESERVATION_BASE_URL of each gateway slot. */
  reservationSlots: string[];
  posUrl: string;
  controlUrl: string;
  /** Sample values the traffic asks for. */
  sample: { busyDate: string; checkId: string; revenueCenterId: string; bookingDate: string };
}

/** The booking POSTs each slot holds now: how long ago each was received. */
export interface HeldPosts {
  ageMs: number[][];
}

export interface UpstreamsReport {
  /** The reservations created with each note (the harness writes a booking's Idempotency-Key there), by id. */
  bookingsByNote: Record<string, string[]>;
  /** When POS answered each `GET /employees` (the budgeted client's only call), ms since the epoch. */
  employeesCalls: number[];
  posts: number;
}

/** Every note the harness writes starts so; other reservations (the sample's) are not bookings of the run. */
export const BOOKING_NOTE_PREFIX = 'chaos:';

async function main(): Promise<void> {
  const slots = Number(process.env.CHAOS_SLOTS ?? 4);
  const bookingDelayMs = Number(process.env.CHAOS_BOOKING_DELAY_MS ?? 500);
  // Midnight UTC today, as the bench's sample: the same dates all day, and a booking a week ahead is never past.
  const now = new Date(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`);
  const state = createSampleState({ now });
  const employeesCalls: number[] = [];
  const reservation = createReservationService(state, { clock: () => now });
  const pos = createPosService(state, {
    record: (r) => {
      if (r.method === 'GET' && r.path.startsWith('/employees')) employeesCalls.push(Date.now());
    },
  });
  const reservationUrl = await listen(reservation);
  const posUrl = await listen(pos);
  // Per slot, when each POST held now was received (ms since the epoch).
  const held = Array.from({ length: slots }, () => new Set<number>());
  let posts = 0;
  const proxies = await Promise.all(
    held.map((slotHeld) =>
      listen(
        createServer((req, res) => {
          const booking = req.method === 'POST';
          const since = { at: 0 };
          void relay(req, res, reservationUrl, booking ? bookingDelayMs : 0, (delta) => {
            if (!booking) return;
            if (delta > 0) {
              // Unique per request: two received in the same millisecond must not share an entry.
              since.at = Date.now() + posts / 1e6;
              slotHeld.add(since.at);
              posts += 1;
            } else slotHeld.delete(since.at);
          });
        }),
      ),
    ),
  );
  const control = createServer((req, res) => {
    const now = Date.now();
    const inflight: HeldPosts = { ageMs: held.map((slot) => [...slot].map((at) => now - at)) };
    const body = req.url === '/inflight' ? inflight : req.url === '/report' ? report(state, employeesCalls, posts) : undefined;
    res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(body ?? {}));
  });
  const controlUrl = await listen(control);
  const today = SAMPLE.today(state);
  const addresses: UpstreamsAddresses = {
    reservationSlots: proxies,
    posUrl,
    controlUrl,
    sample: {
      busyDate: SAMPLE.laTerrazza.busyDate(state),
      checkId: SAMPLE.laTerrazza.openCheckId,
      revenueCenterId: SAMPLE.laTerrazza.revenueCenterIds[0],
      bookingDate: `${addDays(today, 7)}T19:30`,
    },
  };
  process.stdout.write(`${JSON.stringify(addresses)}\n`);
  process.once('SIGTERM', () => process.exit(0));
}

function report(state: ReturnType<typeof createSampleState>, employeesCalls: number[], posts: number): UpstreamsReport {
  const bookingsByNote: Record<string, string[]> = {};
  for (const tenant of Object.values(state.tenants)) {
    for (const record of tenant.reservations.values()) {
      if (!record.note.startsWith(BOOKING_NOTE_PREFIX)) continue;
      (bookingsByNote[record.note] ??= []).push(record.id);
    }
  }
  return { bookingsByNote, employeesCalls, posts };
}

/** Reads the whole request, waits `delayMs`, passes it on to `target` and its answer back (to nobody, if the caller left). */
async function relay(req: IncomingMessage, res: ServerResponse, target: string, delayMs: number, hold: (delta: number) => void): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  hold(1);
  try {
    if (delayMs > 0) await sleep(delayMs);
    const answer = await new Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }>((resolve, reject) => {
      const out = httpRequest(new URL(req.url ?? '/', target), { method: req.method, headers: req.headers }, (upstream) => {
        const parts: Buffer[] = [];
        upstream.on('data', (c: Buffer) => parts.push(c));
        upstream.on('end', () => resolve({ status: upstream.statusCode ?? 502, headers: upstream.headers, body: Buffer.concat(parts) }));
        upstream.on('error', reject);
      });
      out.on('error', reject);
      out.end(Buffer.concat(chunks));
    });
    if (!res.destroyed) res.writeHead(answer.status, answer.headers).end(answer.body);
  } catch {
    if (!res.destroyed) res.writeHead(502).end();
  } finally {
    hold(-1);
  }
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
  });
}

function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`chaos upstreams failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
