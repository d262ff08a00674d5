import { Writable } from 'node:stream';
import Redis from 'ioredis';
import { ClientBudgets } from '../../src/clients/budgets';
import { DEFAULT_POLICIES } from '../../src/clients/clientsFile';
import type { KnownClient } from '../../src/pipeline/record';
import { createLogger } from '../../src/logger';
import { openRedisConnection, type RedisConnection } from '../../src/redis/connection';
import { eventually } from '../support/gatewayProcess';
import { describeWithRedis, startRedisServer, type RedisServer } from '../support/redisServer';

const withRedis = describeWithRedis('the client budget reservation tests');
const logger = createLogger({ level: 'silent', destination: new Writable({ write: (_c, _e, done) => done() }) });

/** Two replicas' budgets (each its own connection to one real Redis), reserving concurrently. */
withRedis('ClientBudgets.reserve across replicas', () => {
  let redis: RedisServer;
  let inspect: Redis;
  const connections: RedisConnection[] = [];
  let replicas: ClientBudgets[];
  let clients = 0;
  /** A partner of its own per test, with `perMinute` upstream calls. */
  const partner = (perMinute: number): KnownClient => ({ name: `partner-${++clients}`, audience: 'partner', policy: { ...DEFAULT_POLICIES.partner, upstreamCallsPerMinute: perMinute } });
  const counted = async (client: KnownClient) => Number((await inspect.get(`tablegraph:rl:calls:${client.name}:partner`)) ?? 0);

  beforeAll(async () => {
    redis = await startRedisServer();
    inspect = new Redis(redis.url);
    for (let i = 0; i < 2; i++) connections.push(openRedisConnection({ url: redis.url, logger }));
    expect(await eventually(() => connections.every((c) => c.available))).toBe(true);
  });
  afterAll(async () => {
    inspect?.disconnect();
    await Promise.all(connections.map((c) => c.close()));
    await redis?.stop();
  });
  const budgetsFor = (client: KnownClient) => (replicas = connections.map((redis) => new ClientBudgets({ clients: [client], redis, localShareOf: 2 })));

  it('never lets concurrent reservations on two replicas exceed the budget by more than one estimate, and uses it whole', async () => {
    const client = partner(20);
    budgetsFor(client);
    const estimate = 3;
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => replicas[i % 2].reserve(client, 'partner', estimate)));
    const admitted = answers.filter((a) => a.allowed).length;
    // Read-then-charge would have let all 40 in (each saw the whole budget).
    expect(admitted * estimate).toBeGreaterThanOrEqual(20);
    expect(admitted * estimate).toBeLessThan(20 + estimate);
    // Refused reservations were given back: Redis counts only what was admitted.
    expect(await counted(client)).toBe(admitted * estimate);
    for (const refused of answers) {
      if (refused.allowed) continue;
      expect(refused.quota).toMatchObject({ name: 'upstream-calls', remaining: 0 });
      expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    }
  });

  it('settles each reservation against the calls actually made, giving back the difference', async () => {
    const client = partner(20);
    budgetsFor(client);
    const reserved = await replicas[0].reserve(client, 'partner', 5);
    expect(reserved).toMatchObject({ allowed: true, quota: { remaining: 15 } });
    expect(await replicas[1].settle(client, 'partner', 5, 2)).toMatchObject({ remaining: 18 });
    expect(await replicas[0].settle(client, 'partner', 0, 4)).toMatchObject({ remaining: 14 });
    expect(await counted(client)).toBe(6);
  });

  it('charges N calls at once and says when the budget is spent (the live polls use it)', async () => {
    const client = partner(10);
    budgetsFor(client);
    expect(await replicas[0].charge(client, 'partner', 6)).toMatchObject({ remaining: 4, spent: false });
    expect(await replicas[1].charge(client, 'partner', 4)).toMatchObject({ remaining: 0, spent: true });
    expect(await replicas[0].reserve(client, 'partner', 1)).toMatchObject({ allowed: false });
  });
});
