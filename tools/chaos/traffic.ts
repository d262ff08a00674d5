import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { SANDBOX_CREDENTIALS } from '../../src/sandbox/credentials';
import { mulberry32 } from '../../src/sandbox/random';
import type { UpstreamsAddresses } from './upstreamsMain';

/** The clients file's two clients: the app the traffic comes from, and one whose upstream-call budget is measured. */
export const APP_CLIENT = 'chaos-app';
export const BUDGETED_CLIENT = 'chaos-budget';

export type Kind = 'day' | 'check' | 'booking' | 'budget';

const DOCUMENTS: Record<Kind, { operationName: string; query: string }> = {
  day: { operationName: 'ChaosDay', query: 'query ChaosDay($date: Date!) { reservations(date: $date, perPage: 20) { nodes { id status check { id status } } } }' },
  check: { operationName: 'ChaosCheck', query: 'query ChaosCheck($id: ID!) { check(id: $id) { id status summary { totalAmount } } }' },
  booking: { operationName: 'ChaosBook', query: 'mutation ChaosBook($input: CreateReservationInput!) { createReservation(input: $input) { reservation { id note } } }' },
  // POS GET /employees, which nothing else asks for: the upstream counts exactly this client's calls.
  budget: { operationName: 'ChaosStaff', query: 'query ChaosStaff { employees(perPage: 5) { nodes { id } } }' },
};

/** One HTTP exchange through the proxy, as the client saw it. */
export interface Attempt {
  kind: Kind;
  /** ms since the epoch. */
  startedAt: number;
  endedAt: number;
  /** `200 ok`, `200 errors`, `409 IDEMPOTENCY_KEY_IN_USE`, `503 proxy` (an answer that is not the gateway's JSON), `connection error`, `client timeout`. */
  label: string;
  status?: number;
  code?: string;
  replayed: boolean;
  retryAfterS?: number;
  /** A booking's reservation id, when the answer carried one. */
  reservationId?: string;
}

/** A keyed booking: every attempt made with its key, and the answer the client took as final. */
export interface KeyedBooking {
  key: string;
  attempts: Attempt[];
  final?: Attempt;
  /** The answer to one more send with the same key after the run (a client whose answer got lost retrying it). */
  resend?: Attempt;
}

/** Whether an answer is final for the client: a success, an outcome the gateway reports, or a refusal. */
export function isFinal(a: Attempt): boolean {
  if (a.status === undefined) return false;
  if (a.replayed) return true;
  if (a.status >= 500 || a.status === 429) return false;
  return !(a.status === 409 && a.code === 'IDEMPOTENCY_KEY_IN_USE');
}

export interface TrafficOptions {
  proxyUrl: string;
  sample: UpstreamsAddresses['sample'];
  /** Requests started per second (day views, checks and bookings). */
  ratePerS: number;
  /** New requests start until this instant (ms since the epoch). */
  endsAt: number;
  /** Bookings keep retrying until this instant. */
  retryUntil: number;
  /** Per attempt, before the client gives up and retries. */
  attemptTimeoutMs: number;
  /** Share of bookings in the mix (the rest split evenly between day views and checks). */
  bookingShare: number;
  seed: number;
  /** Prefix of every Idempotency-Key (and booking note) of the run. */
  keyPrefix: string;
  budget: { concurrency: number; activeMs: number; everyMs: number };
}

export interface BudgetPhase {
  startedAt: number;
  endedAt: number;
  answers: Map<string, number>;
}

/**
 * The client side of the run: an open loop starting `ratePerS` requests a second through the proxy, each a day view,
 * a check or a booking with an Idempotency-Key of its own (its note in the booking holds the key, so the upstream can
 * count executions by key). A booking is retried with the same key on a connection error, a timeout, a 5xx that is
 * not a replay, a 429, or a 409 IDEMPOTENCY_KEY_IN_USE (after Retry-After, or backing off), until it gets a final
 * answer or the run ends. Meanwhile the budgeted client sends `budget.concurrency` requests at a time in phases.
 */
export class Traffic {
  readonly attempts: Attempt[] = [];
  readonly bookings: KeyedBooking[] = [];
  readonly budgetPhases: BudgetPhase[] = [];
  private readonly agent = new Agent({ connections: 256, keepAliveTimeout: 4000 });
  private readonly random: () => number;
  private keyedInFlight = 0;

  constructor(private readonly options: TrafficOptions) {
    this.random = mulberry32(options.seed);
  }

  /** Runs the traffic until `endsAt`, then waits for every booking to be final or for `retryUntil`. */
  async run(): Promise<void> {
    const jobs: Array<Promise<void>> = [];
    const budget = this.runBudget();
    const gapMs = 1000 / this.options.ratePerS;
    let next = Date.now();
    while (Date.now() < this.options.endsAt) {
      const draw = this.random();
      const { bookingShare } = this.options;
      const kind: Kind = draw < bookingShare ? 'booking' : draw < bookingShare + (1 - bookingShare) / 2 ? 'day' : 'check';
      const job = kind === 'booking' ? this.book(this.bookings.length) : this.query(kind).then(() => undefined);
      jobs.push(job);
      next += gapMs;
      await sleep(Math.max(0, next - Date.now()));
    }
    await Promise.all([...jobs, budget]);
  }

  /** Bookings in flight now (started, not yet final). */
  get bookingsInFlight(): number {
    return this.keyedInFlight;
  }

  /** One more send of every finished booking with its own key, one at a time: a replay is expected, never a second run. */
  async resendAll(): Promise<void> {
    for (const booking of this.bookings) {
      if (!booking.final) continue;
      booking.resend = await this.send('booking', this.bookingBody(booking.key), { 'idempotency-key': booking.key }, false);
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  private async book(index: number): Promise<void> {
    const key = `${this.options.keyPrefix}${index}`;
    const booking: KeyedBooking = { key, attempts: [] };
    this.bookings.push(booking);
    this.keyedInFlight += 1;
    try {
      const body = this.bookingBody(key);
      while (Date.now() < this.options.retryUntil) {
        const attempt = await this.send('booking', body, { 'idempotency-key': key });
        booking.attempts.push(attempt);
        if (isFinal(attempt)) {
          booking.final = attempt;
          return;
        }
        await sleep(this.backoffMs(booking.attempts.length, attempt.retryAfterS));
      }
    } finally {
      this.keyedInFlight -= 1;
    }
  }

  /**
   * As a well-behaved client waits before its `n`th retry: Retry-After when the answer gives one, otherwise
   * exponential backoff from 250 ms up to 3 s, with jitter (a crowd of retrying clients must not become a flood).
   */
  private backoffMs(n: number, retryAfterS: number | undefined): number {
    if (retryAfterS !== undefined) return retryAfterS * 1000;
    return Math.min(3000, 250 * 2 ** (n - 1)) * (0.75 + this.random() / 2);
  }

  private bookingBody(key: string): string {
    const { sample } = this.options;
    return JSON.stringify({
      ...DOCUMENTS.booking,
      variables: {
        input: {
          revenueCenterId: sample.revenueCenterId,
          date: sample.bookingDate,
          guestCount: 2,
          note: `chaos:${key}`,
          customer: { firstName: 'Chaos', lastName: 'Monkey', email: 'chaos@example.test' },
        },
      },
    });
  }

  private query(kind: 'day' | 'check' | 'budget'): Promise<Attempt> {
    const { sample } = this.options;
    const variables = kind === 'day' ? { date: sample.busyDate } : kind === 'check' ? { id: sample.checkId } : {};
    return this.send(kind, JSON.stringify({ ...DOCUMENTS[kind], variables }), kind === 'budget' ? { 'apollographql-client-name': BUDGETED_CLIENT } : {});
  }

  /** The budgeted client: phases of `activeMs` every `everyMs`, `concurrency` requests at a time, while the run lasts. */
  private async runBudget(): Promise<void> {
    const { concurrency, activeMs, everyMs } = this.options.budget;
    if (concurrency <= 0) return;
    for (let start = Date.now(); start < this.options.endsAt; start += everyMs) {
      await sleep(Math.max(0, start - Date.now()));
      const phase: BudgetPhase = { startedAt: Date.now(), endedAt: 0, answers: new Map() };
      this.budgetPhases.push(phase);
      const until = Math.min(start + activeMs, this.options.endsAt);
      const worker = async () => {
        while (Date.now() < until) {
          const a = await this.query('budget');
          phase.answers.set(a.label, (phase.answers.get(a.label) ?? 0) + 1);
          // A refused request is retried after a moment, not in a tight loop.
          if (a.status !== 200) await sleep(100);
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
      phase.endedAt = Date.now();
    }
  }

  /** One request through the proxy; kept among the run's answers unless `counted` is false. */
  private async send(kind: Kind, body: string, extra: Record<string, string>, counted = true): Promise<Attempt> {
    const startedAt = Date.now();
    const attempt = (fields: Omit<Attempt, 'kind' | 'startedAt' | 'endedAt'>): Attempt => {
      const a: Attempt = { kind, startedAt, endedAt: Date.now(), ...fields };
      if (counted) this.attempts.push(a);
      return a;
    };
    try {
      const res = await request(`${this.options.proxyUrl}/graphql`, {
        method: 'POST',
        dispatcher: this.agent,
        headers: { 'content-type': 'application/json', 'apollographql-client-name': APP_CLIENT, ...SANDBOX_CREDENTIALS.laTerrazza, ...extra },
        body,
        headersTimeout: this.options.attemptTimeoutMs,
        bodyTimeout: this.options.attemptTimeoutMs,
      });
      const text = await res.body.text();
      const retryAfter = Number(res.headers['retry-after']);
      const common = { status: res.statusCode, replayed: res.headers['idempotent-replayed'] === 'true', ...(Number.isFinite(retryAfter) ? { retryAfterS: retryAfter } : {}) };
      let json: { data?: { createReservation?: { reservation?: { id?: string } } } | null; errors?: Array<{ extensions?: { code?: string } }> };
      try {
        json = JSON.parse(text) as typeof json;
      } catch {
        return attempt({ ...common, label: `${res.statusCode} proxy` });
      }
      const code = json.errors?.[0]?.extensions?.code;
      const reservationId = json.data?.createReservation?.reservation?.id;
      return attempt({ ...common, label: `${res.statusCode} ${code ?? 'ok'}`, ...(code ? { code } : {}), ...(reservationId ? { reservationId } : {}) });
    } catch (err) {
      const timeout = (err as { code?: string }).code?.startsWith('UND_ERR_') && /TIMEOUT/.test((err as { code: string }).code);
      return attempt({ replayed: false, label: timeout ? 'client timeout' : 'connection error' });
    }
  }
}
