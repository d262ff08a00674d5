import Redis from 'ioredis';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SAMPLE, startSandbox, type Sandbox } from '../../src/sandbox';
import { sha256Hex } from '../../src/sha256';
import { spawnGateway, type GatewayProcess } from '../support/gatewayProcess';
import { describeWithRedis, startRedisServer, type RedisServer } from '../support/redisServer';
import { LA_TERRAZZA } from '../support/stack';

const PARTNERS = {
  shared: { key: 'shared-key', policy: { requestsPerSecond: 1, burst: 5 } },
  other: { key: 'other-key', policy: { requestsPerSecond: 1, burst: 5 } },
  callers: { key: 'callers-key', policy: { upstreamCallsPerMinute: 4 } },
  costly: { key: 'costly-key', policy: { maxCost: 15 } },
  // 10 requests in a 10 s window; each of the two replicas keeps 5 of them while Redis is away.
  resilient: { key: 'resilient-key', policy: { requestsPerSecond: 1, burst: 10 } },
  probe: { key: 'probe-key', policy: { requestsPerSecond: 100, burst: 1000 } },
} as const;
type Partner = keyof typeof PARTNERS;

const CHECK_QUERY = `{ check(id: "${SAMPLE.laTerrazza.openCheckId}") { id } }`;
const TWO_CALLS = `{ reservation(id: "${SAMPLE.laTerrazza.reservationWithCheckId}") { id check { id } } }`;

interface Answer {
  status: number;
  code?: string;
  /** `r` of each policy in the RateLimit header. */
  remaining: Record<string, number>;
}

async function ask(gateway: Gateway, partner: Partner | 'unknown', query = CHECK_QUERY): Promise<Answer> {
  const key = partner === 'unknown' ? 'who-knows' : PARTNERS[partner].key;
  const res = await fetch(`${gateway.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...LA_TERRAZZA, 'x-api-key': key },
    body: JSON.stringify({ query }),
  });
  const body = (await res.json()) as { errors?: Array<{ extensions?: { code?: string } }> };
  const remaining = Object.fromEntries(
    (res.headers.get('ratelimit') ?? '')
      .split(',')
      .filter(Boolean)
      .map((m) => [/"([^"]+)"/.exec(m)![1], Number(/;r=(\d+)/.exec(m)![1])]),
  );
  return { status: res.status, code: body.errors?.[0]?.extensions?.code, remaining };
}

interface Gateway {
  process: GatewayProcess;
  url: string;
}

const withRedis = describeWithRedis('the distributed client budget tests');

withRedis('client budgets across two gateway processes sharing Redis', () => {
  let sandbox: Sandbox;
  let redis: RedisServer;
  let a: Gateway;
  let b: Gateway;
  /** Every gateway process spawned, also one whose start failed, so afterAll ends them all. */
  const started: GatewayProcess[] = [];

  /** Until a request on `gateway` counts in Redis: its connection is up, so budgets are shared from now on. */
  async function untilShared(gateway: Gateway): Promise<void> {
    const client = new Redis(redis.url);
    try {
      const count = async () => Number((await client.get('tablegraph:rl:req:probe:partner')) ?? 0);
      for (let i = 0; i < 100; i++) {
        const before = await count();
        await ask(gateway, 'probe');
        if ((await count()) > before) return;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error('the gateway never reached Redis');
    } finally {
      client.disconnect();
    }
  }

  async function startGateway(clientsFile: string): Promise<Gateway> {
    const child = spawnGateway('src/main.ts', {
      NODE_ENV: 'test',
      RESERVATION_BASE_URL: sandbox.reservationUrl,
      POS_BASE_URL: sandbox.posUrl,
      PORT: '0',
      HOST: '127.0.0.1',
      SHUTDOWN_DELAY_MS: '0',
      REDIS_URL: redis.url,
      CLIENTS_FILE: clientsFile,
      RATE_LIMIT_LOCAL_SHARE_OF: '2',
    });
    started.push(child);
    const listening = await child.waitForLog('gateway listening');
    await child.waitForLog('gateway ready');
    return { process: child, url: `http://127.0.0.1:${String(listening.port)}` };
  }

  beforeAll(async () => {
    sandbox = await startSandbox();
    redis = await startRedisServer();
    const file = join(mkdtempSync(join(tmpdir(), 'tablegraph-clients-')), 'clients.json');
    const clients = Object.entries(PARTNERS).map(([name, p]) => ({ name, audience: 'partner', keySha256: sha256Hex(p.key), policy: p.policy }));
    writeFileSync(file, JSON.stringify({ clients }));
    [a, b] = await Promise.all([startGateway(file), startGateway(file)]);
    await untilShared(a);
    await untilShared(b);
  }, 60_000);

  afterAll(async () => {
    for (const child of started) child.kill();
    await redis?.stop();
    await sandbox?.close();
  });

  beforeEach(() => sandbox.resetRequests());

  it('shares one client\'s request budget across both, its RateLimit values counting down on either', async () => {
    const answers: Answer[] = [];
    for (const gateway of [a, b, a, b, a, b]) answers.push(await ask(gateway, 'shared'));
    expect(answers.map((x) => x.status)).toEqual([200, 200, 200, 200, 200, 429]);
    expect(answers.slice(0, 5).map((x) => x.remaining.requests)).toEqual([4, 3, 2, 1, 0]);
    expect(answers[5].code).toBe('RATE_LIMITED');
  });

  it('keeps two clients\' budgets apart', async () => {
    const other = await ask(b, 'other');
    expect(other.status).toBe(200);
    expect(other.remaining.requests).toBe(4);
  });

  it('shares the upstream-call budget, charged with the calls each request made', async () => {
    const first = await ask(a, 'callers', TWO_CALLS);
    expect(first.remaining['upstream-calls']).toBe(2);
    const second = await ask(b, 'callers', TWO_CALLS);
    expect(second).toMatchObject({ status: 200, remaining: { 'upstream-calls': 0 } });
    const third = await ask(a, 'callers', TWO_CALLS);
    expect(third).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    expect(sandbox.requests).toHaveLength(4);
  });

  it('refuses a partner over its maximum cost with zero upstream calls', async () => {
    const res = await ask(b, 'costly', '{ reservations(date: "2026-01-01", perPage: 20) { nodes { id } } }');
    expect(res).toMatchObject({ status: 400, code: 'COST_ESTIMATED_TOO_EXPENSIVE' });
    expect(sandbox.requests).toHaveLength(0);
  });

  it('refuses an unknown key on either', async () => {
    expect(await ask(a, 'unknown')).toMatchObject({ status: 401, code: 'UNAUTHENTICATED' });
    expect(await ask(b, 'unknown')).toMatchObject({ status: 401, code: 'UNAUTHENTICATED' });
    expect(sandbox.requests).toHaveLength(0);
  });

  it('falls back to each replica\'s share while Redis is down, never unlimited nor failing, and shares again once it is back', async () => {
    const port = Number(new URL(redis.url).port);
    await redis.stop();
    await Promise.all([a, b].map((g) => g.process.waitForLog('Redis unavailable: shared state falls back as documented')));

    const onA: Answer[] = [];
    for (let i = 0; i < 6; i++) onA.push(await ask(a, 'resilient'));
    // A's share is 5 of the 10: then refused, with the contract's code, never a 5xx.
    expect(onA.map((x) => x.status)).toEqual([200, 200, 200, 200, 200, 429]);
    expect(onA[5].code).toBe('RATE_LIMITED');
    // B keeps its own share meanwhile.
    expect((await ask(b, 'resilient')).status).toBe(200);

    redis = await startRedisServer({ port });
    await Promise.all([a, b].map((g) => g.process.waitForLog('Redis connection is back', 20_000)));
    await untilShared(a);
    await untilShared(b);
    // The restarted Redis holds a fresh shared budget of 10, which both now spend together.
    const back = [await ask(a, 'resilient'), await ask(b, 'resilient'), await ask(a, 'resilient')];
    expect(back.map((x) => x.status)).toEqual([200, 200, 200]);
    expect(back.map((x) => x.remaining.requests)).toEqual([9, 8, 7]);
  }, 60_000);
});
