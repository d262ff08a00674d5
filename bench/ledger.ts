import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { createSampleState } from '../src/sandbox';
import { benchManifest } from './operations';
import { SERVER_NODE_FLAGS, TRUSTED_MANIFEST, cpuTimeMs, envSettings, gatewayEnv, npmStartArgs, peakRssMiB, rssMiB, startTarget, startUpstreamsProcess, stopProcess, type Target } from './processes';
import { benchNow, connectionHeaders, singleScenario, type ScenarioRequest } from './scenarios';
import type { UpstreamPair } from './upstreams';
import type { Profile, ProfileNode } from './cpuprofile';

/**
 * The cost ledger (issue 29): the CPU microseconds one S1d request spends in each stage of the gateway.
 *
 * `npm run build && npx tsc -p tsconfig.bench.json && node dist/bench/ledger.js` starts the bench upstreams and the built gateway (npm start's flags, the bench's production
 * settings) under V8's CPU profiler, sends it exactly BENCH_LEDGER_WARMUP + BENCH_LEDGER_REQUESTS S1d requests
 * (32 connections, each with credentials of its own), stops it, and sums the profile's samples by stage. A sample
 * belongs to the stage of the innermost frame on its stack that a rule below names (so Node's socket writes under
 * pino are the log line's, under undici the transport's); samples under module loading are start-up and left out.
 * Each stage's time is divided by the requests the process served. Beside it, the process's CPU time from /proc over
 * the measured requests (the profile sees only the main thread: GC helpers and libuv threads are not in it).
 *
 * `node dist/bench/ledger.js <file.cpuprofile> <requests> [CPU µs per request]` buckets a profile made otherwise.
 * BENCH_LEDGER_TARGET=mercurius measures the reference the same way; BENCH_LEDGER_ENV='LOG_LEVEL=warn,…' switches
 * gateway settings (a stage off, to check its line by difference), and is the reference's environment too (NODE_OPTIONS);
 * BENCH_LEDGER_NODE_ARGS adds flags to the measured process's command line; BENCH_LEDGER_IDLE_S leaves the process
 * idle that many seconds between the warm-up and the measured part; BENCH_LEDGER_PERF=true records the measured part
 * with `perf` instead of V8's profiler, as on-CPU time with the kernel's and the other threads' apart (PerfTally).
 */


const LOG_LINE = 'the log line (pino, its write to stdout)';

/** A stage, and how a frame is known to be its own: by the file (path relative to dist/ or a package) and function. */
const RULES: Array<{ stage: string; file: RegExp; fn?: RegExp }> = [
  { stage: LOG_LINE, file: /^(pino|sonic-boom|fast-redact|on-exit-leak-free|src\/logger\.js)$/ },
  { stage: 'metrics (prom-client)', file: /^(prom-client|src\/observability\/(metrics|upstreamHooks|deviations)\.js|src\/clients\/clientMetrics\.js)$/ },
  { stage: 'the span (OpenTelemetry)', file: /^(@opentelemetry\/.*|src\/observability\/tracing\.js)$/ },
  { stage: 'field-local reading of upstream records', file: /^src\/upstreams\/(record|schemas|(pos|reservation)\/assumptions)\.js$/ },
  { stage: 'scalars (each value checked as served)', file: /^src\/scalars\.js$/ },
  { stage: 'shared reads (joins, kept answers)', file: /^(src\/upstreams\/sharedReads\.js|lru-cache)$/ },
  { stage: 'upstream body: status, JSON.parse', file: /^src\/upstreams\/answer\.js$/ },
  { stage: 'resilience: retries, breaker, bulkhead', file: /^(cockatiel|src\/upstreams\/(resilience|circuitBreaker)\.js)$/ },
  { stage: 'upstream transport (undici, deadlines)', file: /^(undici|wasm:.*|src\/upstreams\/(transport|http|events)\.js)$/ },
  { stage: 'the loader and upstream clients', file: /^(dataloader|src\/loaders\/.*|src\/upstreams\/(pos|reservation)\/.*)$/ },
  { stage: 'execution and resolvers (graphql-jit)', file: /^(graphql-jit|src\/execution\/jitExecution\.js|src\/resolvers\/.*|\(compiled query\))$/ },
  { stage: 'serialising the answer (JSON.stringify)', file: /^src\/execution\/compiledPath\.js$/, fn: /^$/ },
  { stage: 'choosing the executor (find, variables, cost)', file: /^(src\/execution\/compiledPath\.js|src\/limits\/.*)$/ },
  { stage: 'context and credentials', file: /^src\/(context|credentials|sha256)\.js$/ },
  { stage: 'the record', file: /^src\/http\/requestRecord\.js$/ },
  { stage: 'step: client policies', file: /^(src\/clients\/.*|rate-limiter-flexible)$/ },
  { stage: 'step: trusted documents', file: /^src\/trustedDocuments\/.*$/ },
  { stage: 'step: persisted queries', file: /^src\/apq\/.*$/ },
  { stage: 'step: idempotency', file: /^src\/idempotency\/.*$/ },
  { stage: 'reading the request (body, JSON, operations)', file: /^(src\/http\/operationRequests\.js|src\/graphqlDocument\.js|negotiator)$/ },
  { stage: 'route: finish (outcome, log fields)', file: /^src\/http\/graphqlRoute\.js$/, fn: /^(finish|answerOutcome|callSummary|roundMs)$/ },
  { stage: 'route: writing the response', file: /^src\/http\/(graphqlRoute|send)\.js$/, fn: /^write$/ },
  { stage: 'route: the rest (steps chain, headers)', file: /^src\/http\/graphqlRoute\.js$/ },
  { stage: 'server: routing, lifecycle', file: /^src\/(server|http\/(lifecycle|connectionLimits|opsRoutes))\.js$/ },
  { stage: 'Apollo Server, graphql-js', file: /^(@apollo\/.*|graphql|@escape\.tech\/.*)$/ },
  // The Mercurius reference's own stages (BENCH_LEDGER_TARGET=mercurius).
  { stage: 'Fastify', file: /^(fastify|@fastify\/.*|find-my-way|avvio|fast-json-stringify|light-my-request|secure-json-parse|content-type|toad-cache)$/ },
  { stage: 'Mercurius', file: /^mercurius$/ },
  { stage: 'the reference\'s resolvers and mapping', file: /^bench\/(mercurius|baseline)\.js$/ },
  // Node's HTTP server: what is under no rule above (parsing requests, writing responses to sockets).
  { stage: 'Node HTTP server (parsing, sockets)', file: /^node:_http_(server|incoming|outgoing|common)$/ },
];

const OTHER = 'other (promises, timers, Node internals under no stage)';
const START_UP = 'start-up and module loading (left out)';

/** A frame's file as the rules see it: a package name, `src/…`/`bench/…` of ours, or Node's own `node:…` module. */
function fileOf(url: string): string {
  if (!url) return '';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  const ours = /\/dist\/(.+)$/.exec(url);
  if (ours) return ours[1];
  return url;
}

function stageOfFrame(frame: Pick<ProfileNode['callFrame'], 'url' | 'functionName'>): string | undefined {
  const file = fileOf(frame.url);
  // graphql-jit's compiled functions have no url: they are known by their names (`…ResolverHandler`, `…Handler`);
  // so are the records' generated classes (a getter per field, `$requireId`), when V8 has not inlined them.
  if (!file && /Handler$|^__context/.test(frame.functionName)) return 'execution and resolvers (graphql-jit)';
  if (!file && /^(get \S+|\$requireId)$/.test(frame.functionName)) return 'field-local reading of upstream records';
  for (const rule of RULES) if (rule.file.test(file) && (!rule.fn || rule.fn.test(frame.functionName))) return rule.stage;
  return undefined;
}

export interface Ledger {
  /** Microseconds of main-thread CPU per request, by stage, largest first. */
  stages: Array<{ stage: string; usPerRequest: number }>;
  /** Sum of the stages (start-up and idle left out). */
  totalUsPerRequest: number;
  /** Garbage collection on the main thread, per request (part of the total). */
  gcUsPerRequest: number;
}

/** Buckets a V8 CPU profile by stage and divides by the requests the process served. */
export function ledgerOf(profile: Profile, requests: number): Ledger {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);
  const stageOfNode = new Map<number, string | null>();
  const resolveStage = (id: number): string | null => {
    const known = stageOfNode.get(id);
    if (known !== undefined) return known;
    const node = byId.get(id)!;
    const name = node.callFrame.functionName;
    let stage: string | null;
    if (name === '(idle)') stage = null;
    else if (name === '(garbage collector)') stage = 'garbage collection';
    else if (name === '(program)') stage = 'V8 and native, unattributed (program)';
    else if (/^(Module\._load|executeUserEntryPoint|wrapSafe|compileForInternalLoader)$/.test(name)) stage = START_UP;
    else {
      const up = parent.get(id);
      const above = up === undefined ? undefined : resolveStage(up);
      // Start-up wins from any depth; otherwise the innermost frame a rule names.
      stage = above === START_UP ? START_UP : (stageOfFrame(node.callFrame) ?? above ?? OTHER);
    }
    stageOfNode.set(id, stage);
    return stage;
  };
  const us = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const stage = resolveStage(id);
    if (stage === null || stage === START_UP) return;
    us.set(stage, (us.get(stage) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  return ledgerFrom(us, 1 / requests);
}

/** A ledger of per-stage totals, each times `scale` (µs per request), largest first. */
function ledgerFrom(totals: ReadonlyMap<string, number>, scale: number): Ledger {
  const stages = [...totals].map(([stage, total]) => ({ stage, usPerRequest: total * scale })).sort((a, b) => b.usPerRequest - a.usPerRequest);
  return {
    stages,
    totalUsPerRequest: stages.reduce((a, s) => a + s.usPerRequest, 0),
    gcUsPerRequest: stages.find((s) => s.stage === 'garbage collection')?.usPerRequest ?? 0,
  };
}

/** V8's collector, in a native frame (a sample under one is collection, whoever allocated). */
const COLLECTOR = /Scaveng|MarkCompact|Heap::(Collect|PerformGarbageCollection)|IncrementalMarking|ConcurrentMarking|Sweeper|MinorM/;
/** V8's optimising compiler, on a helper thread. */
const COMPILER = /compiler::|OptimizingCompile|Turbofan|Maglev/;
const KERNEL = 'the kernel (system calls: socket writes and reads, epoll)';
const PROGRAM = 'V8 and native, unattributed (program)';
const JSON_PARSE = 'JSON.parse (the upstream bodies, the request)';
const JSON_STRINGIFY = 'JSON.stringify (the answer)';
const NO_STACK = 'no stack (perf could not walk it)';

interface PerfFrame {
  ip: string;
  sym: string;
}

/**
 * One `perf script -F tid,ip,sym,dso` frame as the profile would name it. Node's `--perf-basic-prof` names JavaScript
 * `JS:<tier><function> <file>:<line>:<column>` (no file for code made by `new Function`, as graphql-jit and the
 * records make theirs); anything else is native (V8, Node, libc) or, at a kernel address (x86-64's upper half), the
 * kernel's, its modules' included.
 */
function perfFrame({ ip, sym }: PerfFrame): { kernel: boolean; js?: Pick<ProfileNode['callFrame'], 'url' | 'functionName'> } {
  if (ip.length === 16 && ip.startsWith('ffff')) return { kernel: true };
  if (!sym.startsWith('JS:')) return { kernel: false };
  if (sym.startsWith('JS:wasm')) return { kernel: false, js: { functionName: sym, url: 'wasm:' } };
  const name = sym.slice(3).replace(/^[*~^+]/, '');
  const at = /^(.*?) ?(\S*):\d+:\d+$/.exec(name);
  return { kernel: false, js: at ? { functionName: at[1] ?? '', url: at[2] ?? '' } : { functionName: name, url: '' } };
}

/**
 * The same stages from `perf`'s on-CPU samples (BENCH_LEDGER_PERF=true): perf samples a thread only while it runs, so
 * each main-thread sample is `periodUs` of CPU, with no scaling to /proc; the kernel's time in system calls is a stage
 * of its own; the other threads (V8's collector and compiler helpers, libuv) are counted apart. perf sees machine
 * frames: code V8 inlined counts in its caller's stage (a record's getter inside graphql-jit's handler is execution).
 * A sample's stage is that of the innermost JavaScript frame a rule names, as in the profile; the native frames
 * above it can make it another: V8's collector, and (but under the log line) JSON.parse, JSON.stringify, the kernel.
 */
export class PerfTally {
  private readonly main = new Map<string, number>();
  private readonly others = new Map<string, number>();
  private tid: string | undefined;
  private frames: PerfFrame[] = [];

  constructor(private readonly mainTid: string) {}

  /** One line of `perf script -F tid,ip,sym,dso`: a sample's thread (and its one frame, when perf prints it there), then its frames, innermost first, each after a tab. */
  line(text: string): void {
    const frame = /^\t\s*([0-9a-f]+) (.*) \((.*)\)$/.exec(text);
    if (frame) {
      if (this.tid === undefined) throw new Error(`perf script: a frame before any sample: ${text}`);
      this.frames.push({ ip: frame[1] ?? '', sym: frame[2] ?? '' });
      return;
    }
    if (!text.trim()) return;
    const sample = /^\s*(\d+)(?:\s+([0-9a-f]+) (.*) \((.*)\))?\s*$/.exec(text);
    if (!sample) throw new Error(`perf script: not a sample of -F tid,ip,sym,dso: ${text}`);
    this.flush();
    this.tid = sample[1];
    if (sample[2] !== undefined) this.frames.push({ ip: sample[2], sym: sample[3] ?? '' });
  }

  /** The ledger: each stage's main-thread CPU µs per request, and the other threads' by what they ran. */
  result(requests: number, periodUs: number): { main: Ledger; others: Ledger['stages'] } {
    this.flush();
    this.tid = undefined;
    if (this.main.size === 0) throw new Error(`perf recorded no sample of the main thread (${this.mainTid})`);
    return { main: ledgerFrom(this.main, periodUs / requests), others: ledgerFrom(this.others, periodUs / requests).stages };
  }

  private flush(): void {
    const { tid, frames } = this;
    if (tid === undefined) return;
    this.frames = [];
    const count = (map: Map<string, number>, stage: string) => map.set(stage, (map.get(stage) ?? 0) + 1);
    if (tid !== this.mainTid) {
      const helper = frames.some((f) => COLLECTOR.test(f.sym)) ? 'garbage collection' : frames.some((f) => COMPILER.test(f.sym)) ? 'compiling (TurboFan)' : 'other';
      return void count(this.others, helper);
    }
    if (frames.length === 0) return void count(this.main, NO_STACK);
    const parsed = frames.map(perfFrame);
    const firstJs = parsed.findIndex((f) => f.js);
    const native = firstJs < 0 ? frames : frames.slice(0, firstJs);
    if (native.some((f) => COLLECTOR.test(f.sym))) return void count(this.main, 'garbage collection');
    let stage: string | undefined;
    for (const f of parsed) if (f.js && (stage = stageOfFrame(f.js))) break;
    // V8's JSON and the kernel are known by their own frames (machine frames name the caller V8 inlined JSON into,
    // not the call), but the log line's are the log line's, as in the profile.
    if (stage !== LOG_LINE) {
      if (native.some((f) => /JsonParser/.test(f.sym))) return void count(this.main, JSON_PARSE);
      if (native.some((f) => /JsonStringifier/.test(f.sym))) return void count(this.main, JSON_STRINGIFY);
      if (parsed[0]?.kernel) return void count(this.main, KERNEL);
    }
    count(this.main, stage ?? (firstJs < 0 ? PROGRAM : OTHER));
  }
}

/**
 * The ledger as a table. The profiler samples wall time: on a shared machine a thread waiting for a core is sampled
 * in whatever it was running, so the sampled total overstates CPU. With `cpuUsPerRequest` (the process's CPU time per
 * request from /proc, all threads), each stage's share of the sampled time is also shown as CPU µs: share × that.
 */
export function formatLedger(ledger: Ledger, cpuUsPerRequest?: number): string {
  const cpu = cpuUsPerRequest !== undefined;
  const lines = [`| stage | share of samples |${cpu ? ' CPU µs per request |' : ''} sampled µs per request |`, `|---|---:|${cpu ? '---:|' : ''}---:|`];
  for (const { stage, usPerRequest } of ledger.stages) {
    const share = usPerRequest / ledger.totalUsPerRequest;
    lines.push(`| ${stage} | ${(100 * share).toFixed(1)} % |${cpu ? ` ${(share * cpuUsPerRequest).toFixed(0)} |` : ''} ${usPerRequest.toFixed(0)} |`);
  }
  lines.push(`| **total** | 100 % |${cpu ? ` **${cpuUsPerRequest.toFixed(0)}** (/proc) |` : ''} ${ledger.totalUsPerRequest.toFixed(0)} (main thread, sampled) |`);
  return lines.join('\n');
}

/** The checkout whose built gateway is measured: this one, or BENCH_LEDGER_ROOT (a `git worktree` of a commit before). */
const ROOT = resolve(process.env.BENCH_LEDGER_ROOT ?? resolve(__dirname, '..', '..'));

async function run(): Promise<void> {
  const warmup = Number(process.env.BENCH_LEDGER_WARMUP ?? 2000);
  const requests = Number(process.env.BENCH_LEDGER_REQUESTS ?? 10000);
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
  const idleS = Number(process.env.BENCH_LEDGER_IDLE_S ?? 0);
  if (!Number.isFinite(idleS) || idleS < 0) throw new Error(`BENCH_LEDGER_IDLE_S must be a number of seconds, not ${process.env.BENCH_LEDGER_IDLE_S}`);
  const target = process.env.BENCH_LEDGER_TARGET === 'mercurius' ? 'mercurius' : 'gateway';
  // Read before anything starts, so a bad setting leaves no process behind.
  const extra = envSettings(process.env.BENCH_LEDGER_ENV, 'BENCH_LEDGER_ENV');
  const now = benchNow();
  const state = createSampleState({ now });
  writeFileSync(TRUSTED_MANIFEST, benchManifest());
  const upstreams = await startUpstreamsProcess<{ fast: UpstreamPair }>(join(__dirname, 'upstreamsMain.js'), [now.toISOString()]);
  const profiles = mkdtempSync(join(tmpdir(), 'tablegraph-ledger-'));
  // BENCH_LEDGER_PERF=true: perf's on-CPU samples of the measured part instead of V8's profiler (PerfTally).
  const perf = process.env.BENCH_LEDGER_PERF === 'true';
  // BENCH_LEDGER_PROFILE=false: the /proc figure alone, without the profiler's own cost.
  const profiled = process.env.BENCH_LEDGER_PROFILE !== 'false' && !perf;
  if (profiled) process.env.BENCH_CPU_PROF = profiles;
  const pair = upstreams.addresses.fast;
  const env: Record<string, string> =
    target === 'gateway'
      ? { ...gatewayEnv(pair), ...extra }
      : { RESERVATION_BASE_URL: pair.reservationUrl, POS_BASE_URL: pair.posUrl, ...extra };
  const script = target === 'gateway' ? npmStartArgs(ROOT) : [...SERVER_NODE_FLAGS, join(__dirname, 'mercuriusMain.js')];
  // BENCH_LEDGER_GC=true: V8's trace of each collection (to the collector's file), summed up below.
  const gcTrace = process.env.BENCH_LEDGER_GC === 'true' ? join(profiles, `${target}-gc.txt`) : undefined;
  // BENCH_LEDGER_NODE_ARGS: V8 flags Node refuses in NODE_OPTIONS (`--trace-opt`, `--track-gc-object-stats`), for either side.
  const nodeArgs = (process.env.BENCH_LEDGER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  // perf names JavaScript frames by the map file the first flag has V8 write (/tmp/perf-<pid>.map, removed below);
  // the second gives functions still in V8's interpreter frames of their own.
  const perfArgs = perf ? ['--perf-basic-prof-only-functions', '--interpreted-frames-native-stack'] : [];
  const args = [...(gcTrace ? ['--trace-gc-nvp'] : []), ...perfArgs, ...nodeArgs, ...script];
  let server: Target | undefined;
  let recording: { stop(): Promise<void> } | undefined;
  try {
    server = await startTarget(target, args, env, target, gcTrace);
    // What start-up alone took (modules, schema, compiled documents): the peak so far, before any load.
    const readyRss = peakRssMiB(server.process.pid);
    const scenario = process.env.BENCH_LEDGER_SCENARIO ?? 'S1d';
    // S0 (`{ __typename }`): the fixed cost of a request, no upstream call; S1: one venue's credentials (sharing on);
    // S2d: the day view's 31 calls, each connection's own credentials, without the bench's 20 ms upstream latency.
    const { request, own } = singleScenario(scenario, 'BENCH_LEDGER_SCENARIO', state);
    const expectBody = await (await fetch(server.url + request.path, { method: 'POST', headers: request.headers, body: request.body })).text();
    await sendExactly(server, request, warmup, connections, expectBody, own);
    // BENCH_LEDGER_IDLE_S: a lull between the warm-up and the measured part, as a replica meets between bursts (and
    // the sides of `npm run bench` before their rounds, while the others are loaded).
    let lull = '';
    if (idleS > 0) {
      const before = rssMiB(server.process.pid);
      await sleep(idleS * 1000);
      lull = `; after the warm-up RSS ${before?.toFixed(0) ?? 'n/a'} MiB, after ${idleS} s idle ${rssMiB(server.process.pid)?.toFixed(0) ?? 'n/a'} MiB`;
    }
    if (perf) recording = await startPerf(server.process.pid, join(profiles, 'perf.data'));
    const cpuBefore = cpuTimeMs(server.process.pid) ?? NaN;
    const started = performance.now();
    await sendExactly(server, request, requests, connections, expectBody, own);
    const cpuMs = (cpuTimeMs(server.process.pid) ?? NaN) - cpuBefore;
    const seconds = (performance.now() - started) / 1000;
    const peak = peakRssMiB(server.process.pid);
    await recording?.stop();
    recording = undefined;
    await stopProcess(server.process);
    if (gcTrace) {
      await server.collected;
      log(scavengesOf(readFileSync(gcTrace, 'utf8'), 1 + warmup + requests));
    }
    if (!profiled) {
      log(`${scenario} on ${target}: ${(requests / seconds).toFixed(0)} req/s, process CPU (/proc) ${((1000 * cpuMs) / requests).toFixed(0)} µs per request, peak RSS ${peak?.toFixed(0) ?? 'n/a'} MiB (${readyRss?.toFixed(1) ?? 'n/a'} when ready)${lull}`);
      if (perf) log(`\n${await perfLedger(join(profiles, 'perf.data'), server.process.pid, requests)}`);
      return;
    }
    const file = readdirSync(profiles).find((f) => f.startsWith(`${target}-`));
    if (!file) throw new Error(`no profile written in ${profiles}`);
    const profile = JSON.parse(readFileSync(join(profiles, file), 'utf8')) as Profile;
    // The first answer, the warm-up and the measured requests; readiness probes are too few to count.
    const ledger = ledgerOf(profile, 1 + warmup + requests);
    log(`${scenario} on ${target}${extra && Object.keys(extra).length ? ` with ${JSON.stringify(extra)}` : ''}: ${warmup} + ${requests} requests, ${connections} connections, each its own credentials`);
    log(`measured part: ${(requests / seconds).toFixed(0)} req/s under the profiler, process CPU (/proc) ${((1000 * cpuMs) / requests).toFixed(0)} µs per request${lull}`);
    log(`profile: ${join(profiles, file)}\n`);
    log(formatLedger(ledger, (1000 * cpuMs) / requests));
  } finally {
    await recording?.stop().catch(() => undefined);
    if (server) await stopProcess(server.process);
    await stopProcess(upstreams.process);
    // perf's recording (tens of MB) and the map of the process's code V8 wrote for it: read, or of a failed run.
    if (perf) {
      rmSync(join(profiles, 'perf.data'), { force: true });
      if (server?.process.pid !== undefined) rmSync(`/tmp/perf-${server.process.pid}.map`, { force: true });
    }
  }
}

/**
 * What `--trace-gc-nvp` printed of the young-generation collections (`gc=s`) and the full ones (`gc=mc`): how many
 * per 1,000 requests, and what an average scavenge copied (what outlived it: the more, the longer the scavenge).
 */
function scavengesOf(trace: string, requests: number): string {
  const field = (line: string, name: string) => Number(new RegExp(`(?:^|\\s)${name}=([0-9.]+)`).exec(line)?.[1] ?? 0);
  const lines = trace.split('\n');
  const scavenges = lines.filter((line) => /(?:^|\s)gc=s\s/.test(line));
  const fulls = lines.filter((line) => /(?:^|\s)gc=mc\s/.test(line));
  const mean = (name: string) => scavenges.reduce((sum, line) => sum + field(line, name), 0) / Math.max(1, scavenges.length);
  // The heap as each collection found it, which peak RSS follows: its objects, and beside them the free space left
  // inside old pages (V8 counts the two apart; the largest of each may come from different collections).
  const largest = (name: string) => [...scavenges, ...fulls].reduce((most, line) => Math.max(most, field(line, name)), 0);
  const lastFull = fulls.at(-1);
  const mib = (bytes: number) => (bytes / 1048576).toFixed(1);
  return (
    `GC: ${((1000 * scavenges.length) / requests).toFixed(1)} scavenges and ${((1000 * fulls.length) / requests).toFixed(1)} full collections per 1,000 requests; ` +
    `each scavenge ${mean('scavenge').toFixed(2)} ms, ${(mean('new_space_survived') / 1024).toFixed(0)} KB survived, ${(mean('promoted') / 1024).toFixed(0)} KB promoted; ` +
    `objects at most ${mib(largest('total_size_before'))} MiB before a collection, free space in old pages at most ${mib(largest('holes_size_before'))} MiB besides, ` +
    `objects ${lastFull ? mib(field(lastFull, 'total_size_after')) : 'n/a'} MiB after the last full collection`
  );
}

/** Exactly `amount` requests over `connections` connections, connection n with credentials of its own (`own`). */
export async function sendExactly(server: Target, request: ScenarioRequest, amount: number, connections: number, expectBody: string, own: boolean): Promise<void> {
  let connection = 0;
  const result = await autocannon({
    url: server.url + request.path,
    method: request.method,
    headers: request.headers,
    body: request.body,
    connections,
    amount,
    expectBody,
    ...(own ? { setupClient: (client: { setHeaders(headers: Record<string, string>): void }) => client.setHeaders(connectionHeaders(request, connection++)) } : {}),
  });
  const bad = result.errors + result.timeouts + result.non2xx + result.mismatches;
  if (bad > 0) throw new Error(`${server.name}: ${bad} of ${amount} requests failed or answered otherwise`);
}

/** perf's cpu-clock sample period: one sample per 500 µs a thread runs. */
const PERF_PERIOD_US = 500;

/** `perf record` of the process's threads, on-CPU, with call stacks; `stop` ends it and waits for its file. */
async function startPerf(pid: number | undefined, file: string): Promise<{ stop(): Promise<void> }> {
  if (pid === undefined) throw new Error('no process to record');
  const child = spawn('perf', ['record', '-e', 'cpu-clock', '-c', String(PERF_PERIOD_US * 1000), '-g', '-p', String(pid), '-o', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // perf ends on SIGTERM by raising it again once its file is written: that ending is the good one.
  const exited = new Promise<string>((done, fail) => {
    child.once('error', (err) => fail(new Error(`perf record could not start (is perf installed?): ${err.message}`)));
    child.once('exit', (code, signal) => done(code === 0 || signal === 'SIGTERM' ? 'ok' : `exit ${code ?? signal}`));
  });
  // perf prints nothing when it has attached; a second is ample, and the process idles through it.
  const early = await Promise.race([exited, sleep(1000).then(() => 'attached' as const)]);
  if (early !== 'attached') throw new Error(`perf record ended at once (${early}): ${stderr.trim()}`);
  return {
    async stop() {
      await stopProcess(child);
      const how = await exited;
      if (how !== 'ok') throw new Error(`perf record ended with ${how}: ${stderr.trim()}`);
      // perf's own count of what it could not keep up with, were there any.
      for (const line of stderr.split('\n')) if (/lost/i.test(line)) log(`perf record: ${line.trim()}`);
    },
  };
}

/** The measured part's perf samples as the ledger's stages (PerfTally), read as `perf script` prints them. */
async function perfLedger(file: string, pid: number | undefined, requests: number): Promise<string> {
  const tally = new PerfTally(String(pid));
  const script = spawn('perf', ['script', '--no-inline', '-i', file, '-F', 'tid,ip,sym,dso'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  script.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((done, fail) => {
    script.once('error', fail);
    script.once('exit', done);
  });
  // Awaited together, so a perf script that cannot start rejects here rather than unhandled while its lines are read.
  const [code] = await Promise.all([
    exited,
    (async () => {
      for await (const line of createInterface({ input: script.stdout })) tally.line(line);
    })(),
  ]);
  if (code !== 0) throw new Error(`perf script ended with ${code}: ${stderr.trim()}`);
  const { main, others } = tally.result(requests, PERF_PERIOD_US);
  const lines = ['| stage (main thread) | CPU µs per request |', '|---|---:|'];
  for (const { stage, usPerRequest } of main.stages) lines.push(`| ${stage} | ${usPerRequest.toFixed(1)} |`);
  lines.push(`| **main thread** | **${main.totalUsPerRequest.toFixed(1)}** |`);
  for (const { stage, usPerRequest } of others) lines.push(`| other threads: ${stage} | ${usPerRequest.toFixed(1)} |`);
  const othersUs = others.reduce((a, s) => a + s.usPerRequest, 0);
  lines.push(`| **all threads** (perf's samples; /proc above) | **${(main.totalUsPerRequest + othersUs).toFixed(1)}** |`);
  return lines.join('\n');
}

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

function main(): Promise<void> {
  const [file, requests, cpuUs] = process.argv.slice(2);
  if (file) {
    log(formatLedger(ledgerOf(JSON.parse(readFileSync(file, 'utf8')) as Profile, Number(requests)), cpuUs === undefined ? undefined : Number(cpuUs)));
    return Promise.resolve();
  }
  return run();
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`ledger failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}

