import { cpus } from 'node:os';
import { runChaos, type ChaosOptions } from './harness';
import { formatSummary } from './summary';

/**
 * `npm run chaos`: a Redis failover, a gateway killed mid-booking and a rolling restart, under load, with real
 * processes (see harness.ts). Prints the figures, and exits 1 when a check fails (a key ran twice, a completion was
 * dropped, a booking never got an answer, keyed bookings did not come back within 15 s, the proxy stopped serving).
 *
 * Knobs: CHAOS_DURATION_S (120), CHAOS_RATE (30 requests/s), CHAOS_BOOKING_SHARE (0.3), CHAOS_BOOKING_DELAY_MS
 * (500), CHAOS_REQUEST_TIMEOUT_MS (3000), CHAOS_BUDGET_PER_MINUTE (150), CHAOS_BUDGET_CONCURRENCY (8),
 * CHAOS_GATEWAY=built|source (built: `npm run chaos` builds first), CHAOS_SEED (1). The faults come at fixed shares of
 * the duration: SIGKILL at 1/8, rolling restart at 1/4, Redis primary killed at 1/2 and back at 2/3.
 */
export function optionsFromEnv(env: NodeJS.ProcessEnv, log: (line: string) => void): ChaosOptions {
  const num = (name: string, def: number) => {
    const value = env[name] === undefined || env[name] === '' ? def : Number(env[name]);
    if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a number ≥ 0`);
    return value;
  };
  const durationS = num('CHAOS_DURATION_S', 120);
  const build = env.CHAOS_GATEWAY ?? 'built';
  if (build !== 'built' && build !== 'source') throw new Error('CHAOS_GATEWAY must be built or source');
  return {
    build,
    durationS,
    ratePerS: num('CHAOS_RATE', 30),
    bookingShare: num('CHAOS_BOOKING_SHARE', 0.3),
    bookingDelayMs: num('CHAOS_BOOKING_DELAY_MS', 500),
    requestTimeoutMs: num('CHAOS_REQUEST_TIMEOUT_MS', 3000),
    at: { sigkill: durationS / 8, rolling: durationS / 4, redisKill: durationS / 2, redisRestart: (durationS * 2) / 3 },
    // Phases shorter than the 60 s window and a window apart: each phase's calls fall in one window of the budget.
    budget: { perMinute: num('CHAOS_BUDGET_PER_MINUTE', 150), concurrency: num('CHAOS_BUDGET_CONCURRENCY', 8), activeS: Math.min(40, durationS), everyS: 65 },
    seed: num('CHAOS_SEED', 1),
    log,
  };
}

async function main(): Promise<void> {
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const options = optionsFromEnv(process.env, log);
  log(`npm run chaos — ${new Date().toISOString()}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, gateways ${options.build}`);
  const { run, summary } = await runChaos(options);
  log('');
  log(formatSummary(run, summary));
  process.exitCode = summary.checks.every((c) => c.pass) ? 0 : 1;
}

main().catch((err: unknown) => {
  process.stderr.write(`npm run chaos failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(2);
});
