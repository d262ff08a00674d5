import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { get } from 'node:http';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { UpstreamPair } from './upstreams';

/** A server under test, in a process of its own. */
export interface Target {
  name: 'gateway' | 'baseline' | 'mercurius';
  /** What the report calls it: its name, or a variant (S4's sides). */
  label: string;
  url: string;
  process: ChildProcess;
  /** From spawn to the first 200 of GET /readyz. */
  readyMs: number;
  /** Resolves when the log collector has written all the target printed (after the target has exited). */
  collected: Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * The node flags of `npm start` that any server may take, given to the reference and the baseline too: V8's memory
 * reducer off. After a lull of about half a minute it shrank the heap and the next requests paid for compiling again
 * (docs/performance.md, *After a lull*). In `npm run bench` the gateway, warmed first, waits that long before its
 * first round and the others up to about 20 s between theirs; each side gets the setting, so that none pays for it.
 * test/bench/serverFlags.test.ts keeps every flag here in `npm start`.
 */
export const SERVER_NODE_FLAGS = ['--no-memory-reducer'];

/** node's arguments in `npm start` (its flags and the built entry, made absolute), so the gateway runs as production runs it. */
export function npmStartArgs(root: string): string[] {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const [node, ...args] = pkg.scripts.start.split(/\s+/);
  if (node !== 'node') throw new Error(`npm start runs ${node}, not node: ${pkg.scripts.start}`);
  return args.map((arg) => (arg.startsWith('-') ? arg : join(root, arg)));
}

/** Starts `node ...args` with `env` on a free port and waits until GET /readyz answers 200 (polled every 2 ms). */
export async function startTarget(name: Target['name'], args: readonly string[], env: Record<string, string>, label: string = name, stdoutFile?: string): Promise<Target> {
  const port = await freePort();
  const started = performance.now();
  // BENCH_CPU_PROF=<dir>: each process writes a V8 CPU profile there when it exits (see bench/cpuprofile.ts).
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`, `--cpu-prof-name=${name}-${Date.now()}.cpuprofile`] : [];
  // Standard output is a pipe that a process of its own drains, as a log collector would: synchronous log writes
  // cost what they cost in production (to /dev/null they would be nearly free). Not the harness: its event loop runs
  // autocannon, and a pipe it is too busy to read would stall the server's writes on the load generator.
  // `stdoutFile`: the collector keeps what it reads there (the ledger's GC trace), instead of dropping it.
  const kept = stdoutFile ? openSync(stdoutFile, 'w') : undefined;
  const collector = spawn('cat', [], { stdio: ['pipe', kept ?? 'ignore', 'ignore'] });
  if (kept !== undefined) closeSync(kept);
  if (!collector.stdin) throw new Error('the log collector has no standard input');
  const collected = new Promise<void>((resolve) => collector.once('close', () => resolve()));
  const child = spawn(process.execPath, [...profile, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', collector.stdin, 'pipe'],
  });
  // The server holds the pipe now; the collector reads to its end, when the server exits.
  collector.stdin.destroy();
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const url = `http://127.0.0.1:${port}`;
  const until = started + 15_000;
  while (performance.now() < until) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode} before it was ready:\n${stderr}`);
    if ((await statusOf(`${url}/readyz`)) === 200) {
      return { name, label, url, process: child, readyMs: performance.now() - started, collected };
    }
    await sleep(2);
  }
  child.kill('SIGKILL');
  throw new Error(`${name} was not ready within 15 s:\n${stderr}`);
}

/** SIGTERM, then SIGKILL after 5 s. */
export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

/**
 * The peak resident set (VmHWM) of a live process in MiB, summed with its descendants' (the sum of each one's peak,
 * which is at least the peak of their sum); undefined off Linux.
 */
export function peakRssMiB(pid: number | undefined): number | undefined {
  return statusMiB(pid, 'VmHWM');
}

/** The resident set now (VmRSS) of a live process and its descendants in MiB; undefined off Linux. */
export function rssMiB(pid: number | undefined): number | undefined {
  return statusMiB(pid, 'VmRSS');
}

function statusMiB(pid: number | undefined, field: 'VmHWM' | 'VmRSS'): number | undefined {
  let total: number | undefined;
  for (const p of processTree(pid)) {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readProc(`/proc/${p}/status`) ?? '');
    if (match) total = (total ?? 0) + Number(match[1]) / 1024;
  }
  return total;
}

/**
 * CPU time (user + system) a live process and its descendants have used so far, in ms, from /proc/<pid>/stat;
 * undefined off Linux. The difference of two readings around a load is that load's CPU cost, whatever the machine
 * did besides.
 */
export function cpuTimeMs(pid: number | undefined): number | undefined {
  let total: number | undefined;
  for (const p of processTree(pid)) {
    const stat = readProc(`/proc/${p}/stat`);
    if (!stat) continue;
    // Fields after the command name (which may hold spaces, hence the last ')'): state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    total = (total ?? 0) + ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks();
  }
  return total;
}

/** `pid` and every live descendant, by each process's parent in /proc/<pid>/stat. */
export function processTree(pid: number | undefined): number[] {
  if (pid === undefined) return [];
  const parents = new Map<number, number[]>();
  let entries: string[] = [];
  try {
    entries = readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    return [pid];
  }
  for (const entry of entries) {
    const stat = readProc(`/proc/${entry}/stat`);
    if (!stat) continue;
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) tree.push(...(parents.get(tree[i]) ?? []));
  return tree;
}

let ticks: number | undefined;
/** The kernel's clock ticks per second (USER_HZ) that /proc/<pid>/stat counts in; 100 almost everywhere. */
function clockTicks(): number {
  if (ticks === undefined) {
    try {
      ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticks = 100;
    }
  }
  return ticks;
}

function readProc(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function statusOf(url: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    const req = get(url, { agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.once('error', () => resolve(undefined));
  });
}

/** Starts the bench upstreams process and reads the addresses it prints. */
export function startUpstreamsProcess<T>(entry: string, args: string[]): Promise<{ process: ChildProcess; addresses: T }> {
  const child = spawn(process.execPath, [entry, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const line = out.split('\n')[0];
      if (out.includes('\n') && line) resolve({ process: child, addresses: JSON.parse(line) as T });
    });
    child.once('exit', (code) => reject(new Error(`bench upstreams exited with ${code}`)));
  });
}

/** Where the bench writes the trusted-document manifest (`benchManifest()`) that the gateway is started with. */
export const TRUSTED_MANIFEST = join(__dirname, 'trusted-documents.json');

/**
 * The gateway's environment as production sets it; BENCH_GATEWAY_NODE_OPTIONS passes the Node flags NODE_OPTIONS
 * allows to it (experiments).
 */
export function gatewayEnv(pair: UpstreamPair): Record<string, string> {
  // Trusted documents in the default mode (log), as a production gateway serving apps by id runs.
  const env: Record<string, string> = { NODE_ENV: 'production', SINGLE_REPLICA: 'true', RESERVATION_BASE_URL: pair.reservationUrl, POS_BASE_URL: pair.posUrl, SHUTDOWN_DELAY_MS: '0', TRUSTED_DOCUMENTS: TRUSTED_MANIFEST };
  // autocannon keeps sending on a connection the server asked to close (`connection: close` after
  // SERVER_MAX_REQUESTS_PER_SOCKET requests), and Node answers those 503; a real client opens a new connection.
  env.SERVER_MAX_REQUESTS_PER_SOCKET = '0';
  if (process.env.BENCH_GATEWAY_NODE_OPTIONS) env.NODE_OPTIONS = process.env.BENCH_GATEWAY_NODE_OPTIONS;
  // What the compiled path buys: BENCH_COMPILED_PATH=false runs every request through Apollo.
  if (process.env.BENCH_COMPILED_PATH) env.COMPILED_PATH = process.env.BENCH_COMPILED_PATH;
  return env;
}

/** `A=1,B=2` (no spaces; a value cannot hold a comma) as a server's environment settings; a piece without `=` is refused. */
export function envSettings(text: string | undefined, variable: string): Record<string, string> {
  const pieces = (text ?? '').split(',').filter(Boolean);
  const bad = pieces.find((kv) => kv.indexOf('=') < 1);
  if (bad !== undefined) throw new Error(`${variable}: ${JSON.stringify(bad)} is not NAME=value`);
  return Object.fromEntries(pieces.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
}

/** The middle value (the mean of the two middle ones for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
