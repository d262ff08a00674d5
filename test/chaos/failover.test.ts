import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { Janitor, runChaos, type ChaosRun } from '../../tools/chaos/harness';
import { formatSummary, RECOVERY_LIMIT_S, type ChaosSummary } from '../../tools/chaos/summary';

/** What the run starts besides node: npm test's pretest installs them (tools/setup/testDeps.sh). */
function requireTools(): void {
  const missing = ['redis-server', 'redis-sentinel'].filter((tool) => spawnSync(tool, ['--version'], { stdio: 'ignore' }).status !== 0);
  if (!existsSync(process.env.CHAOS_HAPROXY ?? '/usr/sbin/haproxy')) missing.push('haproxy');
  if (missing.length > 0) throw new Error(`the failover test needs ${missing.join(', ')}: run \`bash tools/setup/testDeps.sh\` (npm test runs it first)`);
}

/**
 * The short version of `npm run chaos` (tools/chaos/): real processes only (a Redis primary, a replica and three
 * Sentinels; three gateways behind HAProxy; the sandbox upstreams), 40 s of traffic with keyed bookings retried
 * through the proxy, while a gateway is killed with SIGKILL with bookings in flight (from 3 s), another is replaced as
 * a rolling deploy would (at 7 s) and the Redis primary is killed (at 20 s, or once the killed gateway's leases have
 * lapsed) and comes back as a replica 7 s later. The checks are the contract's (CONTRACT.md, Process and Idempotency-Key).
 */
describe('a Redis failover, a gateway killed mid-booking and a rolling restart, under load', () => {
  const janitor = new Janitor();
  let outcome: { run: ChaosRun; summary: ChaosSummary } | undefined;
  const summary = (): ChaosSummary => {
    if (!outcome) throw new Error('the chaos run did not finish (see the error of beforeAll)');
    return outcome.summary;
  };

  beforeAll(async () => {
    requireTools();
    outcome = await runChaos(
      {
        build: 'source',
        durationS: 40,
        ratePerS: 12,
        bookingShare: 0.3,
        bookingDelayMs: 500,
        requestTimeoutMs: 3000,
        at: { sigkill: 3, rolling: 7, redisKill: 20, redisRestart: 27 },
        // One phase, over before the failover: its overshoot is the budget's own, not Redis's.
        budget: { perMinute: 100, concurrency: 6, activeS: 15, everyS: 65 },
        seed: 7,
        log: () => undefined,
      },
      janitor,
    );
  }, 240_000);

  afterAll(async () => {
    await janitor.cleanAll();
    // The whole report when a check failed: the figures say what went wrong.
    if (outcome && outcome.summary.checks.some((c) => !c.pass)) process.stdout.write(`\n${formatSummary(outcome.run, outcome.summary)}\n`);
  }, 60_000);

  it('kills a gateway with bookings in flight, drains another, and fails Redis over', () => {
    const { run } = outcome!;
    // A kill that missed its moment fails with the run's timeline, which says what happened around it.
    const timeline = run.events.map((e) => `${e.atS.toFixed(1)} s ${e.what}`).join('\n');
    if (!((run.killedInFlight ?? 0) > 0)) throw new Error(`no booking of the gateway killed was in flight when it was killed:\n${timeline}`);
    expect(run.drainedExitCode).toBe(0);
    expect(run.promotedAt).toBeDefined();
  });

  it('runs no keyed booking twice upstream', () => {
    expect(summary().ranTwice).toEqual([]);
  });

  it('drops no completion: every finished booking sent again is replayed or reported, not run again', () => {
    expect(summary().ranAgainOnResend).toEqual([]);
  });

  it('answers every keyed booking, or reports its outcome unknown', () => {
    expect(summary().bookings).toBeGreaterThan(50);
    expect(summary().unanswered).toEqual([]);
    expect(summary().mismatched).toEqual([]);
  });

  it(`serves keyed bookings again within ${RECOVERY_LIMIT_S} s of the Redis primary's death`, () => {
    expect(summary().recoveryS).not.toBeNull();
    expect(summary().recoveryS!).toBeLessThanOrEqual(RECOVERY_LIMIT_S);
  });

  it('keeps the proxy serving queries throughout', () => {
    const { serving } = summary();
    expect(serving.served).toBe(serving.windows);
  });
});
