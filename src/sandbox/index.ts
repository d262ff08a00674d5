import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SANDBOX_CREDENTIALS } from './credentials';
import { createSampleState, SAMPLE } from './data';
import { eveningClock } from './evening';
import type { RecordedRequest } from './http';
import { createPosService } from './posService';
import type { SandboxState } from './records';
import { createReservationService } from './reservationService';

export interface SandboxOptions {
  /** Interface both services listen on. Default '127.0.0.1'. */
  host?: string;
  /** Default 0 (ephemeral). */
  reservationPort?: number;
  /** Default 0 (ephemeral). */
  posPort?: number;
  /** Every response waits this long first (benchmarks use 20). Default 0. */
  delayMs?: number;
  /**
   * The instant the sample data is built around, and what the services' clock reads from then on (a booking's
   * "not in the past", `created_at`), so a test's sample is the same at any hour. Default: the real clock.
   */
  now?: Date;
  /**
   * Move the state along this clock: today's guests arrive and leave, their checks are paid (src/sandbox/evening.ts).
   * `npm run dev` passes the wall clock. Default: none, the state stays as it was built.
   */
  clock?: () => Date;
  /** Use this state instead of the sample data. */
  state?: SandboxState;
  /** Keep every request in `Sandbox.requests`; turn off under load. Default true. */
  recordRequests?: boolean;
}

export interface Sandbox {
  /** e.g. http://127.0.0.1:43121 */
  reservationUrl: string;
  posUrl: string;
  state: SandboxState;
  /** Every request received, in order (empty when recordRequests is false). */
  requests: RecordedRequest[];
  /** Empties `requests` in place, so a reference held by a test stays valid. */
  resetRequests(): void;
  /** Closes both servers, including keep-alive sockets. */
  close(): Promise<void>;
}

/** Starts the simulated reservation and POS services on loopback, with the sample data unless a state is given. */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const host = options.host ?? '127.0.0.1';
  const state = options.state ?? createSampleState(options.now ? { now: options.now } : {});
  const requests: RecordedRequest[] = [];
  const serviceOptions = {
    delayMs: options.delayMs ?? 0,
    ...(options.clock ? { beforeHandle: eveningClock(state, options.clock) } : {}),
    ...(options.recordRequests === false ? {} : { record: (request: RecordedRequest) => void requests.push(request) }),
  };
  const fixed = options.now?.getTime();
  const reservation = createReservationService(state, { ...serviceOptions, ...(fixed === undefined ? {} : { clock: () => new Date(fixed) }) });
  const pos = createPosService(state, serviceOptions);
  try {
    const [reservationUrl, posUrl] = await Promise.all([
      listen(reservation, host, options.reservationPort ?? 0),
      listen(pos, host, options.posPort ?? 0),
    ]);
    return {
      reservationUrl, posUrl, state, requests,
      resetRequests: () => { requests.length = 0; },
      close: async () => { await Promise.all([closeServer(reservation), closeServer(pos)]); },
    };
  } catch (error) {
    await Promise.all([closeServer(reservation), closeServer(pos)]);
    throw error;
  }
}

function listen(server: Server, host: string, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address() as AddressInfo;
      resolve(`http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`);
    });
  });
}

function closeServer(server: Server): Promise<void> {
  if (!server.listening) return Promise.resolve();
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    server.closeAllConnections();
  });
}

export { SANDBOX_CREDENTIALS, SAMPLE, createSampleState };
export { SANDBOX_FIRST_PARTY_APP, SANDBOX_PARTNER } from './credentials';
export type { SandboxState, RecordedRequest };
export type { LaTerrazzaSample, VenueSample } from './data';
