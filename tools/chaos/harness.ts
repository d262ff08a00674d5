import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { HaproxyFront } from './haproxy';
import { exitOf, rssOf, startGateway, startUpstreams, type GatewayBuild, type GatewayProcess } from './processes';
import { RedisTopology, SENTINEL_NAME } from './redisTopology';
import { summarize, type ChaosSummary } from './summary';
import { APP_CLIENT, BUDGETED_CLIENT, Traffic } from './traffic';
import type { HeldPosts, UpstreamsAddresses, UpstreamsReport } from './upstreamsMain';

export interface ChaosOptions {
  /** The gateways run built (`npm start`'s command) or from the TypeScript through tsx. */
  build: GatewayBuild;
  /** Seconds of traffic. */
  durationS: number;
  /** Requests started per second. */
  ratePerS: number;
  bookingShare: number;
  /** Every booking POST waits this long in front of the reservation service. */
  bookingDelayMs: number;
  /** The gateways' REQUEST_TIMEOUT_MS (an idempotency lease lapses 10 s after it). */
  requestTimeoutMs: number;
  /**
   * When each fault happens, in seconds after the traffic starts. The primary dies no sooner than the killed
   * gateway's leases lapse (REQUEST_TIMEOUT_MS + 10 s + 3 s after the SIGKILL), and comes back
   * `redisRestart - redisKill` seconds after it died.
   */
  at: { sigkill: number; rolling: number; redisKill: number; redisRestart: number };
  /** The budgeted client: its upstream calls per minute, requests at a time, and phases (active seconds, every seconds). */
  budget: { perMinute: number; concurrency: number; activeS: number; everyS: number };
  seed: number;
  /** Progress lines (the timeline as it happens). */
  log: (line: string) => void;
}

/** A moment of the run: seconds after the traffic started, and what happened. */
export interface ChaosEvent {
  atS: number;
  what: string;
}

export interface ChaosRun {
  options: ChaosOptions;
  startedAt: number;
  events: ChaosEvent[];
  traffic: Traffic;
  /** The upstream's counts after the run, and again after every finished booking was sent once more. */
  upstream: UpstreamsReport;
  upstreamAfterResend: UpstreamsReport;
  /** When the Redis primary was killed, and when the Sentinels named another (ms since the epoch). */
  redisKilledAt?: number;
  promotedAt?: number;
  /** Bookings in flight upstream on the gateway killed with SIGKILL (gw1 or gw3) when it was killed. */
  killedInFlight?: number;
  /** gw2's exit code after SIGTERM (0: drained). */
  drainedExitCode?: number | null;
  /** Resident memory of the gateways alive at the end. */
  survivors: Array<{ name: string; rssMiB: number; peakMiB: number }>;
  /** Warning and error log lines of every gateway, by message. */
  warnings: Map<string, number>;
}

const PASSWORD = 'chaos-redis-password';

/**
 * One chaos run with real processes only: a Redis primary, a replica and three Sentinels; three gateways behind
 * HAProxy; the sandbox upstreams. Traffic flows through HAProxy while, on schedule, one gateway is killed with
 * SIGKILL (when it has bookings in flight upstream), another is replaced as a rolling deploy would (a new one
 * first, then SIGTERM), and the Redis primary is killed and later started again as a replica. Every process is
 * stopped at the end, whatever happened.
 */
export async function runChaos(options: ChaosOptions, janitor = new Janitor()): Promise<{ run: ChaosRun; summary: ChaosSummary }> {
  const dir = mkdtempSync(join(tmpdir(), 'tablegraph-chaos-'));
  const cleanups = janitor;
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const events: ChaosEvent[] = [];
  let startedAt = Date.now();
  const note = (what: string) => {
    const event = { atS: (Date.now() - startedAt) / 1000, what };
    events.push(event);
    options.log(`[${event.atS.toFixed(1).padStart(6)} s] ${what}`);
  };
  try {
    const upstreams = await startUpstreams<UpstreamsAddresses>({ CHAOS_SLOTS: '4', CHAOS_BOOKING_DELAY_MS: String(options.bookingDelayMs) });
    cleanups.push(async () => {
      upstreams.process.kill('SIGKILL');
      await exitOf(upstreams.process);
    });
    const redis = await RedisTopology.start({ dir, password: PASSWORD });
    cleanups.push(() => redis.stop());
    const clientsFile = join(dir, 'clients.json');
    writeFileSync(clientsFile, JSON.stringify(clientsFileOf(options.budget.perMinute)));
    const gateways = new Map<string, GatewayProcess>();
    cleanups.push(async () => {
      for (const g of gateways.values()) g.process.kill('SIGKILL');
      await Promise.all([...gateways.values()].map((g) => exitOf(g.process)));
    });
    const env = (slot: number): Record<string, string> => ({
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      RESERVATION_BASE_URL: upstreams.addresses.reservationSlots[slot],
      POS_BASE_URL: upstreams.addresses.posUrl,
      // Both: a gateway that knows Sentinel follows the failover (Sentinel wins, REDIS_URL lends the password); one
      // that does not stays on the first primary, which is the "before" this run shows.
      REDIS_URL: redis.primaryUrl,
      REDIS_SENTINELS: redis.sentinelsSetting,
      REDIS_SENTINEL_NAME: SENTINEL_NAME,
      CLIENTS_FILE: clientsFile,
      RATE_LIMIT_LOCAL_SHARE_OF: '3',
      REQUEST_TIMEOUT_MS: String(options.requestTimeoutMs),
      // Two failed checks 500 ms apart take a draining gateway out of HAProxy.
      SHUTDOWN_DELAY_MS: '2000',
      DRAIN_TIMEOUT_MS: String(options.requestTimeoutMs + 5000),
    });
    const start = async (name: string, slot: number) => {
      const g = await startGateway(name, options.build, env(slot));
      gateways.set(name, g);
      return g;
    };
    // One after the other: three compiling at once would only slow each other down on a small machine.
    await start('gw1', 0);
    await start('gw2', 1);
    await start('gw3', 2);
    const proxy = await HaproxyFront.start({ dir, servers: [...['gw1', 'gw2', 'gw3'].map((n) => ({ name: n, port: gateways.get(n)!.port })), { name: 'gw4' }] });
    cleanups.push(() => proxy.stop());
    for (const name of ['gw1', 'gw2', 'gw3']) await waitFor(() => proxy.isUp(name), 10_000, `HAProxy to see ${name} up`);

    const drainMs = options.requestTimeoutMs + 10_000 + 5000;
    startedAt = Date.now();
    const traffic = new Traffic({
      proxyUrl: proxy.url,
      sample: upstreams.addresses.sample,
      ratePerS: options.ratePerS,
      endsAt: startedAt + options.durationS * 1000,
      retryUntil: startedAt + options.durationS * 1000 + drainMs,
      attemptTimeoutMs: options.requestTimeoutMs + 3000,
      bookingShare: options.bookingShare,
      seed: options.seed,
      keyPrefix: `chaos-${startedAt.toString(36)}-`,
      budget: { concurrency: options.budget.concurrency, activeMs: options.budget.activeS * 1000, everyMs: options.budget.everyS * 1000 },
    });
    cleanups.push(() => traffic.close());
    note(`traffic starts through HAProxy at ${options.ratePerS}/s for ${options.durationS} s; gw1, gw2, gw3 up; Redis primary :${redis.primaryPort}, replica :${redis.replicaPort}`);
    const run: ChaosRun = { options, startedAt, events, traffic, upstream: emptyReport(), upstreamAfterResend: emptyReport(), survivors: [], warnings: new Map() };
    const script = async () => {
      const at = async (s: number) => sleep(Math.max(0, startedAt + s * 1000 - Date.now()));
      const held = async (): Promise<number[][]> => ((await (await fetch(`${upstreams.addresses.controlUrl}/inflight`)).json()) as HeldPosts).ageMs;

      await at(options.at.sigkill);
      // The victim is gw1 (slot 0) or gw3 (slot 2; gw2 is the rolling deploy's), whichever first has bookings upstream,
      // one received under 250 ms ago, so that the kill lands while they are held (two if that comes within 2 s; 5 s at
      // most). Either, as round robin over a seeded mix of requests can leave one gateway without bookings for seconds.
      const candidates = [
        { name: 'gw1', slot: 0 },
        { name: 'gw3', slot: 2 },
      ];
      const ready = (ages: number[], waitedMs: number) => ages.length >= (waitedMs < 2000 ? 2 : 1) && Math.min(...ages) < 250;
      const chosen = Date.now();
      let slots = await held();
      let victim = candidates.find((c) => ready(slots[c.slot] ?? [], 0));
      while (!victim && Date.now() - chosen < 5000) {
        await sleep(5);
        slots = await held();
        victim = candidates.find((c) => ready(slots[c.slot] ?? [], Date.now() - chosen));
      }
      victim ??= candidates[0];
      const ages = slots[victim.slot] ?? [];
      const killed = gateways.get(victim.name)!;
      killed.process.kill('SIGKILL');
      const killedAt = Date.now();
      // Counted at once, not after the exit event (which a busy machine may deliver after the holds have ended): a
      // booking the proxy still holds was received before the kill and had no answer yet.
      const inFlight = ((await held())[victim.slot] ?? []).length;
      await exitOf(killed.process);
      run.killedInFlight = inFlight;
      note(`${victim.name} killed with SIGKILL, ${inFlight} of its bookings in flight upstream (${ages.length} held when it was chosen, ${killedAt - chosen} ms into the wait${ages.length > 0 ? `, the youngest ${Math.min(...ages)} ms old` : ''})`);

      await at(options.at.rolling);
      note('rolling deploy: gw4 starts in place of gw2');
      const gw4 = await start('gw4', 3);
      await proxy.enable('gw4', gw4.port);
      await waitFor(() => proxy.isUp('gw4'), 15_000, 'HAProxy to see gw4 up');
      note('gw4 up in HAProxy; gw2 gets SIGTERM');
      const gw2 = gateways.get('gw2')!;
      gw2.process.kill('SIGTERM');
      void exitOf(gw2.process).then(async () => {
        run.drainedExitCode = gw2.process.exitCode;
        note(`gw2 exited (code ${gw2.process.exitCode}, signal ${gw2.process.signalCode ?? 'none'})`);
        await proxy.disable('gw2').catch(() => undefined);
      });

      await at(options.at.redisKill);
      // Not before the killed gateway's leases have lapsed (and been retried): a gateway without durable leases runs
      // those bookings again then, and the run must see it, not hide it behind Redis's death.
      await sleep(Math.max(0, killedAt + options.requestTimeoutMs + 10_000 + 3000 - Date.now()));
      run.redisKilledAt = Date.now();
      redis.kill(redis.primaryPort);
      note(`Redis primary :${redis.primaryPort} killed with SIGKILL (${traffic.bookingsInFlight} bookings in flight)`);
      try {
        const promoted = await redis.waitForPromotion(redis.primaryPort, 30_000);
        run.promotedAt = Date.now();
        note(`Sentinel promoted :${promoted} after ${((run.promotedAt - run.redisKilledAt) / 1000).toFixed(1)} s`);
      } catch (err) {
        note(String(err));
        return;
      }

      await sleep(Math.max(0, run.redisKilledAt + (options.at.redisRestart - options.at.redisKill) * 1000 - Date.now()));
      await redis.restartAsReplica(redis.primaryPort);
      note(`old primary :${redis.primaryPort} back, as a replica`);
    };
    // Held, not thrown, until the traffic is over: a failed step must not leave the traffic running unawaited.
    let scriptFailure: Error | undefined;
    const scripted = script().catch((err: unknown) => {
      scriptFailure = err instanceof Error ? err : new Error(String(err));
      note(`the fault script stopped: ${err instanceof Error ? err.message : String(err)}`);
    });
    await traffic.run();
    await scripted;
    if (scriptFailure) throw scriptFailure;
    note(`traffic over; ${traffic.bookings.filter((b) => !b.final).length} bookings without a final answer`);
    const report = async () => (await (await fetch(`${upstreams.addresses.controlUrl}/report`)).json()) as UpstreamsReport;
    run.upstream = await report();
    for (const g of gateways.values()) {
      const rss = g.process.exitCode === null && g.process.signalCode === null ? rssOf(g.process.pid) : undefined;
      if (rss) run.survivors.push({ name: g.name, ...rss });
    }
    await traffic.resendAll();
    run.upstreamAfterResend = await report();
    note('every finished booking sent once more with its key');
    for (const g of gateways.values()) for (const [msg, n] of g.warnings) run.warnings.set(msg, (run.warnings.get(msg) ?? 0) + n);
    return { run, summary: summarize(run) };
  } finally {
    await janitor.cleanAll();
  }
}

/**
 * Stops what a run started, last first, each step once, whatever fails. A test holds its own to clean up even when it
 * gives up on the run (its timeout).
 */
export class Janitor {
  private readonly steps: Array<() => Promise<void> | void> = [];

  push(step: () => Promise<void> | void): void {
    this.steps.push(step);
  }

  async cleanAll(): Promise<void> {
    for (const step of this.steps.splice(0).reverse()) {
      try {
        await step();
      } catch {
        // Every other process is still stopped.
      }
    }
  }
}

/** The app's policy leaves it unlimited in practice; the budgeted client has only its upstream-call budget to meet. */
function clientsFileOf(perMinute: number) {
  const open = { requestsPerSecond: 100_000, burst: 100_000, maxCost: 50_000, trustedDocumentsOnly: false };
  return {
    clients: [
      { name: APP_CLIENT, audience: 'first-party', policy: { ...open, upstreamCallsPerMinute: 10_000_000 } },
      { name: BUDGETED_CLIENT, audience: 'first-party', policy: { ...open, upstreamCallsPerMinute: perMinute } },
    ],
  };
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check()) return;
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}`);
}

function emptyReport(): UpstreamsReport {
  return { bookingsByNote: {}, employeesCalls: [], posts: 0 };
}
