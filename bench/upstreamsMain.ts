import { startBenchUpstreams } from './upstreams';

/**
 * The benchmark's upstreams in a process of their own (they must not share an event loop with the load generator).
 * Argument: the sample clock (ISO). Prints one JSON line with the addresses, then serves until SIGTERM.
 */
async function main(): Promise<void> {
  const now = new Date(process.argv[2] ?? '');
  if (Number.isNaN(now.getTime())) throw new Error('usage: upstreamsMain <sample clock, ISO 8601>');
  const upstreams = await startBenchUpstreams({ now, slowDelayMs: Number(process.env.BENCH_SLOW_DELAY_MS ?? 20) });
  process.stdout.write(`${JSON.stringify({ fast: upstreams.fast, slow: upstreams.slow })}\n`);
  process.once('SIGTERM', () => void upstreams.close().then(() => process.exit(0)));
}

main().catch((err: unknown) => {
  process.stderr.write(`bench upstreams failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
