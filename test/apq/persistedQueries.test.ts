import Redis from 'ioredis';
import { SAMPLE } from '../../src/sandbox';
import { sha256Hex } from '../../src/sha256';
import { eventually } from '../support/gatewayProcess';
import { describeWithRedis, startRedisServer, type RedisServer } from '../support/redisServer';
import { LA_TERRAZZA, startStack, type Stack } from '../support/stack';

/** Posts an APQ request: the hash alone, or the hash with the query text to register it. */
async function apq(stack: Stack, query: string, withText: boolean) {
  const res = await fetch(`${stack.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...LA_TERRAZZA },
    body: JSON.stringify({
      ...(withText ? { query } : {}),
      extensions: { persistedQuery: { version: 1, sha256Hash: sha256Hex(query) } },
    }),
  });
  return (await res.json()) as { data?: Record<string, unknown>; errors?: Array<{ extensions?: { code?: string } }> };
}

const employeesQuery = (n: number) => `query Staff${n} { employees(perPage: ${n}) { nodes { id } } }`;

describe('automatic persisted queries', () => {
  describe('in memory (no REDIS_URL)', () => {
    let stack: Stack;
    beforeAll(async () => {
      stack = await startStack();
    });
    afterAll(() => stack.close());

    it('asks for the text of an unknown hash, registers it, then serves the hash alone', async () => {
      const query = employeesQuery(2);
      expect((await apq(stack, query, false)).errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_NOT_FOUND');
      expect((await apq(stack, query, true)).data).toBeDefined();
      const byHash = await apq(stack, query, false);
      expect(byHash.errors).toBeUndefined();
      expect((byHash.data!.employees as { nodes: unknown[] }).nodes).toHaveLength(2);
    });

    it('refuses a text that does not match its hash', async () => {
      const res = await fetch(`${stack.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...LA_TERRAZZA },
        body: JSON.stringify({ query: employeesQuery(3), extensions: { persistedQuery: { version: 1, sha256Hash: sha256Hex('something else') } } }),
      });
      expect(res.status).toBe(400);
    });
  });

  // A real Redis, started here.
  const withRedis = describeWithRedis('the Redis-backed persisted query tests');

  withRedis('shared through Redis (REDIS_URL)', () => {
    let redis: RedisServer;
    let a: Stack;
    let b: Stack;
    beforeAll(async () => {
      redis = await startRedisServer();
      a = await startStack({ env: { REDIS_URL: redis.url } });
      b = await startStack({ env: { REDIS_URL: redis.url } });
      // Until each gateway's Redis connection is up: a query it registers reaches Redis.
      const client = new Redis(redis.url);
      try {
        for (const [i, gateway] of [a, b].entries()) {
          const probe = employeesQuery(10 + i);
          const shared = await eventually(async () => (await apq(gateway, probe, true)).errors === undefined && (await client.exists(`tablegraph:apq:apq:${sha256Hex(probe)}`)) === 1);
          if (!shared) throw new Error('a gateway never reached Redis');
        }
      } finally {
        client.disconnect();
      }
    });
    afterAll(async () => {
      await Promise.all([a?.close(), b?.close()]);
      await redis?.stop();
    });

    it('lets a replica serve by hash a query another replica registered', async () => {
      const query = employeesQuery(4);
      expect((await apq(a, query, true)).errors).toBeUndefined();
      const fromB = await apq(b, query, false);
      expect(fromB.errors).toBeUndefined();
      expect((fromB.data!.employees as { nodes: unknown[] }).nodes).toHaveLength(4);

      const client = new Redis(redis.url);
      try {
        expect(await client.get(`tablegraph:apq:apq:${sha256Hex(query)}`)).toBe(query);
        expect(await client.ttl(`tablegraph:apq:apq:${sha256Hex(query)}`)).toBeGreaterThan(0);
      } finally {
        client.disconnect();
      }
    });

    it('keeps serving when Redis goes away: known hashes from memory, unknown ones as a miss, full queries as usual', async () => {
      const known = employeesQuery(5);
      expect((await apq(a, known, true)).errors).toBeUndefined();
      await redis.stop();

      const byHash = await apq(a, known, false);
      expect(byHash.errors).toBeUndefined();
      const unknown = employeesQuery(6);
      expect((await apq(a, unknown, false)).errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_NOT_FOUND');
      expect((await apq(a, unknown, true)).errors).toBeUndefined();
      const plain = await a.gql<{ check: { id: string } }>(`query($id: ID!) { check(id: $id) { id } }`, { id: SAMPLE.laTerrazza.openCheckId });
      expect(plain.body.data!.check.id).toBe(SAMPLE.laTerrazza.openCheckId);
      expect((await fetch(`${a.url}/readyz`)).status).toBe(200);
    });
  });
});
