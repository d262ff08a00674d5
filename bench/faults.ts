import { readFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { createSampleState } from '../src/sandbox';
import { ALL_FAULTS, startFaultProxy, type FaultProxy } from '../src/sandbox/faultProxy';
import { MIX, learnTraffic, runLoad, type OperationKind, type Sample } from './faultLoad';
import { npmStartArgs, startTarget, startUpstreamsProcess, stopProcess } from './processes';
import { benchNow } from './scenarios';
import type { UpstreamPair } from './upstreams';

/**
 * `npm run bench:faults`: a load check, not a benchmark of speed. The gateway (production build, production
 * settings) serves mixed traffic while both upstreams fail a share of calls at random, with every kind of fault
 * (ALL_FAULTS). It reports what operators would see: answers with and without errors, the share of
 * upstream-dependent fields served against the share of calls that succeeded upstream, circuit openings, latency,
 * and the gateway's resident memory over time.
 */
const settings = {
  faultRate: envNumber('BENCH_FAULT_RATE', 0.1, 0, 1),
  durationS: envNumber('BENCH_FAULT_DURATION_S', 60, 1),
  clients: envNumber('BENCH_FAULT_CLIENTS', 16, 1),
  seed: envNumber('BENCH_FAULT_SEED', 15, 0),
  rssEveryS: envNumber('BENCH_FAULT_RSS_EVERY_S', 5, 1),
};

const ROOT = resolve(__dirname, '..', '..');

async function main(): Promise<void> {
  const now = benchNow();
  const state = createSampleState({ now });
  const upstreams = await startUpstreamsProcess<{ fast: UpstreamPair }>(join(__dirname, 'upstreamsMain.js'), [now.toISOString()]);
  const proxies = {
    reservation: await startFaultProxy({ target: upstreams.addresses.fast.reservationUrl, seed: settings.seed }),
    pos: await startFaultProxy({ target: upstreams.addresses.fast.posUrl, seed: settings.seed + 1 }),
  };
  const env: Record<string, string> = { NODE_ENV: 'production', SINGLE_REPLICA: 'true', RESERVATION_BASE_URL: proxies.reservation.url, POS_BASE_URL: proxies.pos.url, SHUTDOWN_DELAY_MS: '0' };
  if (process.env.BENCH_GATEWAY_NODE_OPTIONS) env.NODE_OPTIONS = process.env.BENCH_GATEWAY_NODE_OPTIONS;
  const gateway = await startTarget('gateway', npmStartArgs(ROOT), env);
  const circuit: Array<{ at: number; service: string; state: string }> = [];
  let loadStarted = 0;
  let pending = '';
  gateway.process.stdout?.on('data', (chunk: Buffer) => {
    const lines = (pending + chunk.toString('utf8')).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      const match = /"msg":"circuit of the (\w+) service is ([\w-]+)"/.exec(line);
      if (match) circuit.push({ at: performance.now() - loadStarted, service: match[1], state: match[2] });
    }
  });
  try {
    const traffic = await learnTraffic(gateway.url, state);
    const rss: Array<{ at: number; mib: number }> = [];
    for (const proxy of Object.values(proxies)) resetStats(proxy);
    for (const proxy of Object.values(proxies)) proxy.rate = settings.faultRate;
    loadStarted = performance.now();
    const sampler = setInterval(() => rss.push({ at: performance.now() - loadStarted, mib: rssMiB(gateway.process.pid) }), 1000);
    const samples = await runLoad({ gatewayUrl: gateway.url, clients: settings.clients, durationMs: settings.durationS * 1000, traffic, seed: settings.seed });
    clearInterval(sampler);
    report(samples, proxies, circuit, rss, (performance.now() - loadStarted) / 1000);
  } finally {
    await stopProcess(gateway.process);
    await Promise.all(Object.values(proxies).map((p) => p.close()));
    await stopProcess(upstreams.process);
  }
}

function report(samples: Sample[], proxies: Record<'reservation' | 'pos', FaultProxy>, circuit: Array<{ at: number; service: string; state: string }>, rss: Array<{ at: number; mib: number }>, elapsedS: number): void {
  const kinds = Object.keys(MIX) as OperationKind[];
  log(`npm run bench:faults — ${new Date().toISOString()}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`);
  log(`fault rate ${settings.faultRate} on both upstreams, faults drawn evenly from ${ALL_FAULTS.join(', ')}; ${settings.clients} clients for ${settings.durationS} s (${elapsedS.toFixed(1)} s with the last answers); seed ${settings.seed}`);
  log('');
  log('| upstream | calls | faults injected | share of calls answered well |');
  log('|---|---:|---:|---:|');
  for (const [name, proxy] of Object.entries(proxies)) {
    const injected = Object.values(proxy.stats.faults).reduce((a, b) => a + b, 0);
    log(`| ${name} | ${proxy.stats.calls} | ${injected} (${pct(injected, proxy.stats.calls)}) | ${pct(proxy.stats.calls - injected, proxy.stats.calls)} |`);
  }
  log('');
  log('| operation | answers | without errors | with errors | root field served | p50 ms | p99 ms |');
  log('|---|---:|---:|---:|---:|---:|---:|');
  for (const kind of [...kinds, 'all' as const]) {
    const of = kind === 'all' ? samples : samples.filter((s) => s.kind === kind);
    const clean = of.filter((s) => !s.withErrors).length;
    const latencies = of.map((s) => s.latencyMs);
    log(`| ${kind} | ${of.length} | ${clean} (${pct(clean, of.length)}) | ${of.length - clean} | ${pct(of.filter((s) => s.rootServed).length, of.length)} | ${quantile(latencies, 0.5).toFixed(1)} | ${quantile(latencies, 0.99).toFixed(1)} |`);
  }
  const lists = samples.filter((s) => s.kind === 'dayList');
  const asked = lists.reduce((a, s) => a + s.checksAsked, 0);
  const served = lists.reduce((a, s) => a + s.checksServed, 0);
  const singles = samples.filter((s) => s.kind === 'check');
  log('');
  const arrived = lists.filter((s) => s.rootServed);
  const askedInArrived = arrived.reduce((a, s) => a + s.checksAsked, 0);
  log(`checks served, against ${pct(1 - settings.faultRate, 1)} of upstream calls answered well:`);
  log(`- in the day lists that arrived: ${pct(served, askedInArrived)} of ${askedInArrived}`);
  log(`- in all day lists (a list lost to a reservation-service fault counts all its checks as not served): ${pct(served, asked)} of ${asked}`);
  log(`- single checks: ${pct(singles.filter((s) => s.rootServed).length, singles.length)} of ${singles.length}`);
  log(`HTTP statuses: ${JSON.stringify(countBy(samples.map((s) => String(s.status))))}`);
  const openings = circuit.filter((c) => c.state === 'open');
  log(`circuit openings: ${openings.length}${openings.length ? ` (${openings.map((c) => `${c.service} at ${(c.at / 1000).toFixed(1)} s`).join(', ')})` : ''}; time open: ${JSON.stringify(openSeconds(circuit, elapsedS * 1000))}`);
  const rows = rss.filter((r, i) => i === rss.length - 1 || Math.round(r.at / 1000) % settings.rssEveryS === 0);
  log(`gateway RSS (MiB) over time: ${rows.map((r) => `${Math.round(r.at / 1000)} s ${r.mib.toFixed(0)}`).join(', ')}`);
}

/** Seconds each service's circuit spent open or half-open. */
function openSeconds(circuit: Array<{ at: number; service: string; state: string }>, endMs: number): Record<string, number> {
  const out: Record<string, number> = {};
  const since: Record<string, number | undefined> = {};
  for (const c of circuit) {
    if (c.state !== 'closed' && since[c.service] === undefined) since[c.service] = c.at;
    if (c.state === 'closed' && since[c.service] !== undefined) {
      out[c.service] = (out[c.service] ?? 0) + (c.at - since[c.service]!) / 1000;
      since[c.service] = undefined;
    }
  }
  for (const [service, at] of Object.entries(since)) if (at !== undefined) out[service] = (out[service] ?? 0) + (endMs - at) / 1000;
  return out;
}

function resetStats(proxy: FaultProxy): void {
  proxy.stats.calls = 0;
  for (const fault of ALL_FAULTS) proxy.stats.faults[fault] = 0;
}

function rssMiB(pid: number | undefined): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

function quantile(values: number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

function countBy(values: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) out[v] = (out[v] ?? 0) + 1;
  return out;
}

function pct(part: number, whole: number): string {
  return whole > 0 ? `${((100 * part) / whole).toFixed(1)} %` : 'n/a';
}

function envNumber(name: string, fallback: number, min: number, max = Number.POSITIVE_INFINITY): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value < min || value > max) throw new Error(`${name} must be a number from ${min}${Number.isFinite(max) ? ` to ${max}` : ''}`);
  return value;
}

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:faults failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
