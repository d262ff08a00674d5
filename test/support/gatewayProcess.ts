import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { join } from 'node:path';
import type { Readable } from 'node:stream';

export const ROOT = join(__dirname, '..', '..');

export interface GatewayProcess {
  child: ChildProcessByStdio<null, Readable, Readable>;
  /** Everything written to standard output and standard error so far. */
  stdout(): string;
  stderr(): string;
  /** The JSON log lines written so far, parsed. */
  logs(): Array<Record<string, unknown>>;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  /** Resolves with the first log line whose `msg` is `msg`, or rejects after `timeoutMs`. */
  waitForLog(msg: string, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Kills the process if it still runs (for test cleanup). */
  kill(): void;
}

/**
 * Runs a TypeScript entry of the gateway as its own Node process, as `npm start` would run the built one, with
 * exactly the environment given (plus PATH). The TypeScript is loaded through tsx's require hook rather than its
 * CLI, so signals reach the gateway directly instead of through a relaying parent.
 */
export function spawnGateway(entry: string, env: Record<string, string>): GatewayProcess {
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', entry], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
  child.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let done = false;
  void exited.then(() => (done = true));
  const logs = () =>
    out
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    logs,
    exited,
    async waitForLog(msg, timeoutMs = 15_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const line = logs().find((l) => l.msg === msg);
        if (line) return line;
        if (done || Date.now() > until) throw new Error(`no log line "${msg}"; stdout:\n${out}\nstderr:\n${err}`);
        await sleep(25);
      }
    },
    kill() {
      if (!done) child.kill('SIGKILL');
    },
  };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `check` every 20 ms until it is true or `timeoutMs` passes; answers whether it became true. */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check()) return true;
    await sleep(20);
  }
  return false;
}
