import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, npmStartArgs } from '../../bench/processes';

export const ROOT = join(__dirname, '..', '..');

/** Resolves when `child` has exited (at once if it already has). */
export function exitOf(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Resolves once `port` accepts a connection; rejects after `timeoutMs` or as soon as `child` has exited. */
export async function waitForPort(port: number, timeoutMs: number, child: ChildProcess): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${String(child.spawnfile)} exited before listening on ${port}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.end();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await sleep(50);
  }
  throw new Error(`${String(child.spawnfile)} did not listen on ${port} within ${timeoutMs} ms`);
}

/** How a gateway process runs: the build, as `npm start` runs it, or the TypeScript through tsx (no build needed). */
export type GatewayBuild = 'built' | 'source';

/** One gateway process of the run, with what its log said at warning level and above (by message). */
export interface GatewayProcess {
  name: string;
  url: string;
  port: number;
  process: ChildProcess;
  /** Log lines at warn (40) and above, counted by `msg`. */
  warnings: Map<string, number>;
}

/** Starts a gateway on a free port and waits for its `/readyz` to answer 200. */
export async function startGateway(name: string, build: GatewayBuild, env: Record<string, string>): Promise<GatewayProcess> {
  const port = await freePort();
  const args = build === 'built' ? npmStartArgs(ROOT) : ['--require', 'tsx/cjs', join(ROOT, 'src', 'main.ts')];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const warnings = new Map<string, number>();
  let pending = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    const lines = (pending + chunk.toString('utf8')).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      // Only warnings and errors are kept, by message: the run's log is too large to hold whole.
      const level = /"level":(\d+)/.exec(line)?.[1];
      if (!level || Number(level) < 40) continue;
      const msg = /"msg":"((?:[^"\\]|\\.)*)"/.exec(line)?.[1] ?? '(no msg)';
      warnings.set(msg, (warnings.get(msg) ?? 0) + 1);
    }
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-4000)));
  const url = `http://127.0.0.1:${port}`;
  const until = Date.now() + 90_000;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`gateway ${name} exited with ${child.exitCode} before it was ready:\n${stderr}`);
    if ((await statusOf(`${url}/readyz`)) === 200) return { name, url, port, process: child, warnings };
    await sleep(100);
  }
  child.kill('SIGKILL');
  throw new Error(`gateway ${name} was not ready within 90 s:\n${stderr}`);
}

/** The HTTP status of a GET, or undefined when it failed. */
export async function statusOf(url: string): Promise<number | undefined> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return undefined;
  }
}

/** Resident set (VmRSS) and its peak (VmHWM) of a live process in MiB, from /proc; undefined off Linux or once it has gone. */
export function rssOf(pid: number | undefined): { rssMiB: number; peakMiB: number } | undefined {
  if (pid === undefined) return undefined;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1] ?? NaN);
    return { rssMiB: kb('VmRSS') / 1024, peakMiB: kb('VmHWM') / 1024 };
  } catch {
    return undefined;
  }
}

/** Starts the upstreams process (tools/chaos/upstreamsMain.ts through tsx) and reads the addresses it prints. */
export function startUpstreams<T>(env: Record<string, string>): Promise<{ process: ChildProcess; addresses: T }> {
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', join(__dirname, 'upstreamsMain.ts')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const newline = out.indexOf('\n');
      if (newline >= 0) resolve({ process: child, addresses: JSON.parse(out.slice(0, newline)) as T });
    });
    child.once('exit', (code) => reject(new Error(`the chaos upstreams exited with ${code}`)));
  });
}

/**
 * `n` distinct loopback ports that were free a moment ago, for processes that cannot be told to use port 0. All are
 * held open until the last is found: ports asked for one at a time may come back twice.
 */
export async function freePorts(n: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const server = createServer();
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => resolve());
      });
    }
    return servers.map((s) => (s.address() as { port: number }).port);
  } finally {
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  }
}

export { freePort };
