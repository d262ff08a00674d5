import { spawn, spawnSync } from 'node:child_process';
import { connect } from 'node:net';
import { freePort } from './net';

export interface RedisServer {
  url: string;
  stop(): Promise<void>;
}

/** What to run when redis-server is missing: `npm test` runs it first (tools/setup/testDeps.sh). */
const INSTALL_HINT = 'redis-server is not installed: run `bash tools/setup/testDeps.sh` (npm test runs it first) or `sudo apt-get install -y redis-server`';

/**
 * `describe` for tests that need a real Redis. They never skip: npm test's pretest installs redis-server, and
 * without it the file fails to load, saying which tests need it and what to run.
 */
export function describeWithRedis(what: string): jest.Describe {
  if (spawnSync('redis-server', ['--version'], { stdio: 'ignore', env: process.env }).status !== 0) throw new Error(`${what} need a real Redis; ${INSTALL_HINT}`);
  return describe;
}

/**
 * Starts a real, throwaway redis-server on a free loopback port (or `port`, to bring one back), without persistence.
 * A server that does not listen within 5 s is killed before this rejects, so no child outlives a failed start.
 */
export async function startRedisServer(options: { port?: number } = {}): Promise<RedisServer> {
  const port = options.port ?? (await freePort());
  // `env`: the test file's own process.env (jest gives each file a copy), so its PATH decides which redis-server runs.
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  const child = spawn('redis-server', args, { stdio: 'ignore', env: process.env });
  let startError: Error | undefined;
  const ended = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', (err: NodeJS.ErrnoException) => {
      startError = err.code === 'ENOENT' ? new Error(INSTALL_HINT) : err;
      resolve();
    });
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null && !startError) child.kill('SIGKILL');
    await ended;
  };
  try {
    await waitForPort(port, 5000, ended);
  } catch (err) {
    await stop();
    throw startError ?? err;
  }
  return { url: `redis://127.0.0.1:${port}`, stop };
}

/** Resolves once `port` accepts a connection; rejects after `timeoutMs`, or as soon as the server has exited. */
async function waitForPort(port: number, timeoutMs: number, ended: Promise<void>): Promise<void> {
  let gone = false;
  void ended.then(() => (gone = true));
  const until = Date.now() + timeoutMs;
  while (Date.now() < until && !gone) {
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
  throw new Error(gone ? `redis-server exited before listening on ${port}` : `redis-server did not listen on ${port} within ${timeoutMs} ms`);
}
