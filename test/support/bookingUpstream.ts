import { randomUUID } from 'node:crypto';
import { reservationRecord } from './fixtures';
import { sendJson, startScriptedServer, type ScriptedServer } from './upstreamServer';

/**
 * A reservation service that books for real as far as a test can tell: each POST /v1/reservations answers 201 with a
 * new reservation id, so two runs of one request are told apart by their answers, and `posts()` counts the bookings.
 * The guest's first name scripts it: `Hold` waits until the test calls `release()`; `Slow` never answers (the
 * gateway's timeout fires after the request was sent); `Broken` gets a 500.
 */
export interface BookingUpstream {
  url: string;
  /** POST /v1/reservations received so far. */
  posts(): number;
  /** Lets every held request (and later ones) answer. */
  release(): void;
  close(): Promise<void>;
}

export async function startBookingUpstream(): Promise<BookingUpstream> {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const server: ScriptedServer = await startScriptedServer((req, res, body) => {
    if (req.method !== 'POST') return sendJson(res, 404, { errors: [{ message: 'not found' }] });
    const guest = (JSON.parse(body) as { customer?: { first_name?: string } }).customer?.first_name;
    const answer = () => sendJson(res, 201, { reservation: reservationRecord({ id: randomUUID(), check: null }) });
    if (guest === 'Slow') return;
    if (guest === 'Broken') return sendJson(res, 500, { errors: [{ message: 'internal error' }] });
    if (guest === 'Hold') void gate.then(answer);
    else answer();
  });
  return {
    url: server.url,
    posts: () => server.requests.filter((r) => r.method === 'POST').length,
    release: () => release(),
    close: () => server.close(),
  };
}
