import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { get } from 'node:http';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** A server under test, in a process of its own. */
export interface Target {
  name: 'gateway' | 'baseline';
  url: string;
  process: ChildProcess;
  /** From spawn to the first 200 of GET /readyz. */
  readyMs: number;
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

/** Starts `node entry` with `env` on a free port and waits until GET /readyz answers 200 (polled every 2 ms). */
export async function startTarget(name: Target['name'], entry: string, env: Record<string, string>): Promise<Target> {
  const port = await freePort();
  const started = performance.now();
  // BENCH_CPU_PROF=<dir>: each process writes a V8 CPU profile there when it exits (see bench/cpuprofile.ts).
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`, `--cpu-prof-name=${name}-${Date.now()}.cpuprofile`] : [];
  const child = spawn(process.execPath, [...profile, entry], {
    env: { PATH: process.env.PATH ?? '', ...env, PORT: String(port), HOST: '127.0.0.1' },
    // Standard output is a pipe the harness drains, as a log collector would: synchronous log writes cost what
    // they cost in production (to /dev/null they would be nearly free).
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.resume();
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const url = `http://127.0.0.1:${port}`;
  const until = started + 15_000;
  while (performance.now() < until) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode} before it was ready:\n${stderr}`);
    if ((await statusOf(`${url}/readyz`)) === 200) return { name, url, process: child, readyMs: performance.now() - started };
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

/** The peak resident set (VmHWM) of a live process in MiB; undefined off Linux. */
export function peakRssMiB(pid: number | undefined): number | undefined {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : undefined;
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
