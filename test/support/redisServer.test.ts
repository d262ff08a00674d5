import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeWithRedis, startRedisServer } from './redisServer';

/** Runs `body` with PATH holding only `dir`, where a test puts its own `redis-server`. */
async function withPath<T>(dir: string, body: () => Promise<T>): Promise<T> {
  const saved = process.env.PATH;
  process.env.PATH = dir;
  try {
    return await body();
  } finally {
    process.env.PATH = saved;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('startRedisServer', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'tablegraph-fake-redis-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('kills a redis-server that never listened before it rejects', async () => {
    const pidFile = join(dir, 'pid');
    writeFileSync(join(dir, 'redis-server'), `#!/bin/sh\necho $$ > '${pidFile}'\nexec /bin/sleep 60\n`);
    chmodSync(join(dir, 'redis-server'), 0o755);
    await expect(withPath(dir, () => startRedisServer())).rejects.toThrow(/did not listen on \d+ within 5000 ms/);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(pid).toBeGreaterThan(0);
    expect(alive(pid)).toBe(false);
  }, 15_000);

  it('rejects at once with what to run when redis-server is not installed', async () => {
    const started = performance.now();
    await expect(withPath(dir, () => startRedisServer())).rejects.toThrow(/redis-server is not installed: run `bash tools\/setup\/testDeps.sh`/);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('starts one that answers, and stops it twice without complaint', async () => {
    const redis = await startRedisServer();
    expect(redis.url).toMatch(/^redis:\/\/127\.0\.0\.1:\d+$/);
    await redis.stop();
    await redis.stop();
  });
});

describe('describeWithRedis', () => {
  it('never skips: without redis-server it fails, naming the tests and the command', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'tablegraph-no-redis-'));
    try {
      await withPath(empty, async () => expect(() => describeWithRedis('the replica tests')).toThrow(/^the replica tests need a real Redis; redis-server is not installed: run/));
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
    expect(describeWithRedis('these tests')).toBe(describe);
  });
});
