import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { freePort } from './net';

export interface RedisServer {
  url: string;
  stop(): Promise<void>;
}

/** Whether Debian's redis-server is on this machine (.ci/run installs it; a laptop may not have it). */
export function hasRedisServer(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

/**
 * `describe` for tests that need a real Redis: CI installs redis-server (.ci/run), so there they always run (and fail
 * when it is missing); elsewhere they skip, saying which tests and why on standard error.
 */
export function describeWithRedis(skipped: string): jest.Describe {
  if (hasRedisServer() || process.env.CI) return describe;
  process.stderr.write(`redis-server not found: skipping ${skipped}\n`);
  return describe.skip;
}

/** Starts a real, throwaway redis-server on a free loopback port (or `port`, to bring one back), without persistence. */
export async function startRedisServer(options: { port?: number } = {}): Promise<RedisServer> {
  const port = options.port ?? (await freePort());
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  await waitForPort(port, 5000);
  let exited = false;
  child.once('exit', () => (exited = true));
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (exited) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}

async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.end();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`redis-server did not listen on ${port} within ${timeoutMs} ms`);
}
