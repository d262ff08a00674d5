import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { Writable } from 'node:stream';
import Redis from 'ioredis';
import { createLogger } from '../../src/logger';
import { openRedisConnection, type RedisConnection } from '../../src/redis/connection';
import { eventually } from '../support/gatewayProcess';
import { freePort } from '../support/net';
import { SAMPLE } from '../../src/sandbox';
import { startRedisGroup, type RedisGroup } from '../support/redisGroup';
import { LA_TERRAZZA, startStack } from '../support/stack';
import { closedPort } from '../support/upstreamServer';
import { describeWithRedis } from '../support/redisServer';

const withRedis = describeWithRedis('the Redis Sentinel tests');
const silent = () => createLogger({ level: 'silent', destination: new Writable({ write: (_c, _e, done) => done() }) });

/** The gateway's one Redis module against a real primary, replica and Sentinel, failing over for real. */
withRedis('openRedisConnection behind Sentinel', () => {
  let group: RedisGroup;
  let connection: RedisConnection;

  beforeAll(async () => {
    group = await startRedisGroup({ downAfterMs: 1000 });
    // REDIS_URL names no reachable host: behind Sentinel it only lends its password and database number.
    connection = openRedisConnection({
      url: `redis://:${group.password}@unused.invalid:1/3`,
      sentinel: { sentinels: group.sentinelsSetting.split(',').map((pair) => ({ host: '127.0.0.1', port: Number(pair.split(':')[1]) })), name: group.name },
      waitTimeoutMs: 200,
      logger: silent(),
    });
    expect(await eventually(() => connection.available && connection.durableAvailable, 15_000)).toBe(true);
  }, 60_000);
  afterAll(async () => {
    await connection?.close();
    await group?.stop();
  });

  it("finds the primary through Sentinel, with REDIS_URL's password and database", async () => {
    await connection.client.set('sentinel-test:where', 'here');
    const primary = group.primary.client();
    await primary.select(3);
    expect(await primary.get('sentinel-test:where')).toBe('here');
    await primary.select(0);
    expect(await primary.get('sentinel-test:where')).toBeNull();
  });

  it("counts the primary's connected replicas, so durable writes wait for one", async () => {
    expect(await connection.countReplicas()).toBe(1);
    await connection.durableClient.set('sentinel-test:durable', '1');
    expect(await connection.replicated()).toBe(true);
  });

  it('follows a failover without a restart: commands and subscriptions reach the promoted replica', async () => {
    const heard: string[] = [];
    await connection.subscribe('sentinel-test:channel', (message) => heard.push(message));
    group.primary.signal('SIGKILL');
    // Sentinel notices (down-after-milliseconds), promotes the replica, and the connection asks it again.
    expect(await eventually(async () => (await group.currentPrimaryPort().catch(() => 0)) === group.replica.port, 30_000)).toBe(true);
    expect(await eventually(async () => (await connection.client.set('sentinel-test:after', 'written').catch(() => null)) === 'OK', 15_000)).toBe(true);
    const promoted = group.replica.client();
    await promoted.select(3);
    expect(await promoted.get('sentinel-test:after')).toBe('written');
    // The pub/sub connection followed too: a message published on the new primary is heard.
    expect(await eventually(async () => (await promoted.publish('sentinel-test:channel', 'hello'), heard.includes('hello')), 15_000)).toBe(true);
    // The durable writes' connection followed, and the lone new primary has no replica to wait for.
    expect(await eventually(async () => (await connection.durableClient.set('sentinel-test:durable', '2').catch(() => null)) === 'OK', 15_000)).toBe(true);
    expect(await connection.countReplicas()).toBe(0);
    expect(await connection.replicated()).toBe(true);
  }, 60_000);
});

withRedis('a gateway behind Sentinels that cannot be reached', () => {
  it('starts and is ready, refuses keyed mutations with 503 at once, and serves everything else', async () => {
    const stack = await startStack({ env: { REDIS_SENTINELS: `127.0.0.1:${await closedPort()},127.0.0.1:${await closedPort()}`, REDIS_SENTINEL_NAME: 'nowhere' } });
    try {
      expect((await fetch(`${stack.url}/readyz`)).status).toBe(200);
      const keyed = await fetch(`${stack.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': 'sentinels-away', ...LA_TERRAZZA },
        body: JSON.stringify({ query: 'mutation { createReservation(input: {}) { reservation { id } } }' }),
      });
      expect([keyed.status, keyed.headers.get('retry-after')]).toEqual([503, '1']);
      expect(stack.sandbox.requests).toHaveLength(0);
      const read = await stack.gql(`{ check(id: "${SAMPLE.laTerrazza.openCheckId}") { id } }`);
      expect([read.status, read.body.errors]).toEqual([200, undefined]);
    } finally {
      await stack.close();
    }
  });
});

withRedis('openRedisConnection meeting READONLY', () => {
  it('reconnects instead of retrying the demoted server on the same connection', async () => {
    const port = await freePort();
    const replicaPort = await freePort();
    const start = (p: number, extra: string[]) => spawn('redis-server', ['--port', String(p), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', tmpdir(), ...extra], { stdio: 'ignore' });
    const primary = start(port, []);
    const replica = start(replicaPort, ['--replicaof', '127.0.0.1', String(port)]);
    const watcher = new Redis({ port: replicaPort, host: '127.0.0.1', maxRetriesPerRequest: 1, retryStrategy: () => 100 });
    watcher.on('error', () => undefined);
    // The address the connection knows leads to a replica now, as after a failover behind a moving endpoint.
    const connection = openRedisConnection({ url: `redis://127.0.0.1:${replicaPort}`, logger: silent() });
    try {
      expect(await eventually(async () => /master_link_status:up/.test(await watcher.info('replication').catch(() => '')), 15_000)).toBe(true);
      expect(await eventually(() => connection.available, 10_000)).toBe(true);
      const connectionsBefore = Number(/total_connections_received:(\d+)/.exec(await watcher.info('stats'))![1]);
      await expect(connection.client.set('readonly-test', '1')).rejects.toThrow(/READONLY/);
      // A new connection came: the client dropped the one that met READONLY (ioredis reconnectOnError).
      expect(
        await eventually(async () => Number(/total_connections_received:(\d+)/.exec(await watcher.info('stats'))![1]) > connectionsBefore && connection.available, 10_000),
      ).toBe(true);
    } finally {
      await connection.close();
      watcher.disconnect();
      for (const child of [primary, replica]) child.kill('SIGKILL');
      await Promise.all([primary, replica].map((child) => new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)))));
    }
  }, 30_000);
});
