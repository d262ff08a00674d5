import { Writable } from 'node:stream';
import { IdempotencyStoreUnavailableError, REDIS_KEY_PREFIX, RedisIdempotencyStore, type StoredResponse } from '../../src/idempotency/store';
import { createLogger } from '../../src/logger';
import { openRedisConnection, type RedisConnection } from '../../src/redis/connection';
import { eventually } from '../support/gatewayProcess';
import { describeWithRedis, startRedisServer, type RedisServer } from '../support/redisServer';

const withRedis = describeWithRedis('the Redis idempotency store tests');

const response: StoredResponse = { fingerprint: 'fp', status: 200, contentType: 'application/json', body: '{"data":{"x":"é"}}' };

/** The store over the gateway's own Redis connection module, against a real redis-server. */
withRedis('RedisIdempotencyStore', () => {
  let redis: RedisServer;
  let connection: RedisConnection;
  let store: RedisIdempotencyStore;
  let n = 0;
  const key = () => `store-test-${++n}`;
  /** Lets Redis expire a record's lease now, as its PX would once the replica holding it stopped renewing. */
  const expireLease = async (k: string) => {
    expect(await connection.client.pexpire(REDIS_KEY_PREFIX + k, 1)).toBe(1);
    expect(await eventually(async () => (await connection.client.exists(REDIS_KEY_PREFIX + k)) === 0)).toBe(true);
  };

  beforeAll(async () => {
    redis = await startRedisServer();
    connection = openRedisConnection({ url: redis.url, logger: createLogger({ level: 'silent', destination: new Writable({ write: (_c, _e, done) => done() }) }) });
    store = new RedisIdempotencyStore(connection);
    // The store writes through the durable connection, which may be ready after the main one (a loaded machine).
    expect(await eventually(() => connection.available && connection.durableAvailable)).toBe(true);
  });
  afterAll(async () => {
    await connection?.close();
    await redis?.stop();
  });

  it('lets exactly one of many concurrent takes of a key have it', async () => {
    const k = key();
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => store.take(k, `fp-${i}`, 5000)));
    const taken = results.filter((r) => r.state === 'taken');
    expect(taken).toHaveLength(1);
    const winner = results.indexOf(taken[0]);
    for (const r of results.filter((r) => r.state !== 'taken')) expect(r).toEqual({ state: 'running', fingerprint: `fp-${winner}` });
  });

  it('keeps the response under the key, body byte for byte, then replays it to every take', async () => {
    const k = key();
    const taken = await store.take(k, 'fp', 5000);
    if (taken.state !== 'taken') throw new Error('expected the key to be free');
    await store.complete(k, taken.lease, response, 60);
    expect(await store.take(k, 'other', 5000)).toEqual({ state: 'done', response });
  });

  it('frees a key when its lease runs out, as when a replica dies mid-request', async () => {
    const k = key();
    // A lease long enough for any stall of a loaded machine; then the replica "dies" and Redis lets it run out.
    expect((await store.take(k, 'fp', 60_000)).state).toBe('taken');
    expect((await store.take(k, 'fp', 60_000)).state).toBe('running');
    // The store gave the lease its expiry in Redis: a replica that dies leaves nothing held for good.
    const pttl = await connection.client.pttl(REDIS_KEY_PREFIX + k);
    expect(pttl).toBeGreaterThan(0);
    expect(pttl).toBeLessThanOrEqual(60_000);
    await expireLease(k);
    expect((await store.take(k, 'fp', 5000)).state).toBe('taken');
  });

  it('ignores a complete or release with a lease it no longer holds', async () => {
    const k = key();
    const old = await store.take(k, 'fp', 60_000);
    if (old.state !== 'taken') throw new Error('expected the key to be free');
    await expireLease(k);
    expect((await store.take(k, 'fp', 5000)).state).toBe('taken');
    await store.complete(k, old.lease, response, 60);
    await store.release(k, old.lease);
    expect((await store.take(k, 'fp', 5000)).state).toBe('running');
  });

  it('frees a released key', async () => {
    const k = key();
    const taken = await store.take(k, 'fp', 5000);
    if (taken.state !== 'taken') throw new Error('expected the key to be free');
    await store.release(k, taken.lease);
    expect((await store.take(k, 'fp', 5000)).state).toBe('taken');
  });

  it('says it is unavailable once Redis is gone', async () => {
    await redis.stop();
    await expect(store.take(key(), 'fp', 5000)).rejects.toBeInstanceOf(IdempotencyStoreUnavailableError);
  });
});
