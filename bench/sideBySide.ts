import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createSampleState } from '../src/sandbox';
import { sendExactly } from './ledger';
import { benchManifest } from './operations';
import { TRUSTED_MANIFEST, type Target, cpuTimeMs, envSettings, gatewayEnv, median, npmStartArgs, peakRssMiB, startTarget, startUpstreamsProcess, stopProcess } from './processes';
import { benchNow, singleScenario, type ScenarioRequest } from './scenarios';
import type { UpstreamPair } from './upstreams';

/**
 * Two builds of the gateway measured at the same time: what one change buys, within the noise of a shared machine.
 *
 * `node dist/bench/sideBySide.js <checkout A> <checkout B>` (each built: `npm run build`; a `git worktree` of the
 * commit before serves as A) starts the bench upstreams and both gateways with the production settings, then loads
 * both at once, round after round, with the same requests, and prints each one's process CPU (/proc) per request and
 * the ratio B/A per round and as a median. Run one after the other, two runs of the same build differed by up to 25 %
 * here as the machine's other load came and went; run side by side, both meet the same load: a build against itself
 * (S1, five rounds) gave rounds between 0.89 and 1.06 and a median of 0.99. Every answer must equal the first one A
 * gave.
 *
 * BENCH_SIDE_SCENARIO: S0, S1, S1d (default) or S2d (the day view's 31 calls, without the bench's upstream latency);
 * BENCH_SIDE_ROUNDS (5); BENCH_SIDE_REQUESTS per round and side (8000; S2d 400); BENCH_CONNECTIONS per side (16).
 * BENCH_SIDE_ENV_B='NAME=value,…' (no spaces; a value cannot hold a comma): settings of B's environment alone, so a
 * setting is measured against the same build (`npm run bench:side -- . .`) at the same time. BENCH_SIDE_PAIRS (1):
 * pairs of fresh processes, one after the other (every other pair starting B first), each measured as above; the
 * median of their medians is printed. The rounds of one pair agree with each other more than pairs do (perhaps as
 * each process compiles its code its own way), so a change of a few per cent needs several pairs
 * (docs/performance.md, "How sure a side-by-side figure is"). Each pair's peak RSS is printed after its rounds.
 */

async function run(): Promise<void> {
  const [a, b] = process.argv.slice(2).map((dir) => resolve(dir));
  if (!a || !b) throw new Error('usage: node dist/bench/sideBySide.js <checkout A> <checkout B>');
  const scenario = process.env.BENCH_SIDE_SCENARIO ?? 'S1d';
  const now = benchNow();
  const { request, own } = singleScenario(scenario, 'BENCH_SIDE_SCENARIO', createSampleState({ now }));
  const rounds = Number(process.env.BENCH_SIDE_ROUNDS ?? 5);
  const requests = Number(process.env.BENCH_SIDE_REQUESTS ?? (scenario === 'S2d' ? 400 : 8000));
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
  const pairs = Number(process.env.BENCH_SIDE_PAIRS ?? 1);
  if (!Number.isInteger(pairs) || pairs < 1) throw new Error(`BENCH_SIDE_PAIRS must be a whole number of 1 or more, not ${process.env.BENCH_SIDE_PAIRS}`);
  // Read before anything starts, so a bad setting leaves no process behind.
  const settingsB = envSettings(process.env.BENCH_SIDE_ENV_B, 'BENCH_SIDE_ENV_B');
  writeFileSync(TRUSTED_MANIFEST, benchManifest());
  const upstreams = await startUpstreamsProcess<{ fast: UpstreamPair }>(join(__dirname, 'upstreamsMain.js'), [now.toISOString()]);
  const env = gatewayEnv(upstreams.addresses.fast);
  const envB = { ...env, ...settingsB };
  log(`${scenario}, ${pairs} pair${pairs > 1 ? 's' : ''} of processes, ${rounds} rounds of ${requests} requests to each side at once, ${connections} connections each\nA ${a}\nB ${b}${process.env.BENCH_SIDE_ENV_B ? ` with ${process.env.BENCH_SIDE_ENV_B}` : ''}`);
  const pairMedians: number[] = [];
  try {
    for (let pair = 1; pair <= pairs; pair++) {
      // Every other pair starts B first, so neither side always meets the other's start.
      const started = new Map<'A' | 'B', Target>();
      try {
        for (const side of pair % 2 === 1 ? (['A', 'B'] as const) : (['B', 'A'] as const)) {
          started.set(side, await startTarget('gateway', npmStartArgs(side === 'A' ? a : b), side === 'A' ? env : envB, side));
        }
        if (pairs > 1) log(`pair ${pair}:`);
        pairMedians.push(await measurePair([started.get('A')!, started.get('B')!], { request, own, rounds, requests, connections }));
      } finally {
        // Whichever started, even when the other failed to.
        await Promise.all([...started.values()].map((side) => stopProcess(side.process)));
      }
    }
    if (pairs > 1) log(`median of the ${pairs} pairs' medians: B/A ${median(pairMedians).toFixed(3)} (pairs ${pairMedians.map((ratio) => ratio.toFixed(3)).join(', ')})`);
  } finally {
    await stopProcess(upstreams.process);
  }
}

/** One pair of processes, A and B: warmed together, then measured round by round; gives the median B/A. */
async function measurePair(
  sides: Target[],
  { request, own, rounds, requests, connections }: { request: ScenarioRequest; own: boolean; rounds: number; requests: number; connections: number },
): Promise<number> {
  const answer = async (url: string) => (await fetch(url + request.path, { method: request.method, headers: request.headers, body: request.body })).text();
  const expectBody = await answer(sides[0].url);
  if ((await answer(sides[1].url)) !== expectBody) throw new Error('A and B answer the request differently');
  const both = (amount: number) => Promise.all(sides.map((side) => sendExactly(side, request, amount, connections, expectBody, own)));
  await both(Math.ceil(requests / 2));
  const ratios: number[] = [];
  const perRequest: number[][] = [[], []];
  for (let round = 1; round <= rounds; round++) {
    const before = sides.map((side) => cpuTimeMs(side.process.pid) ?? NaN);
    await both(requests);
    const us = sides.map((side, i) => (1000 * ((cpuTimeMs(side.process.pid) ?? NaN) - before[i])) / requests);
    us.forEach((value, i) => perRequest[i].push(value));
    ratios.push(us[1] / us[0]);
    log(`round ${round}: A ${us[0].toFixed(0)} µs, B ${us[1].toFixed(0)} µs CPU per request; B/A ${(us[1] / us[0]).toFixed(3)}`);
  }
  const ratio = median(ratios);
  log(`median: A ${median(perRequest[0]).toFixed(0)} µs, B ${median(perRequest[1]).toFixed(0)} µs; B/A ${ratio.toFixed(3)} (lowest ${Math.min(...ratios).toFixed(3)}, highest ${Math.max(...ratios).toFixed(3)})`);
  const peaks = sides.map((side) => peakRssMiB(side.process.pid)?.toFixed(0) ?? 'n/a');
  log(`peak RSS: A ${peaks[0]} MiB, B ${peaks[1]} MiB`);
  return ratio;
}

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

run().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
