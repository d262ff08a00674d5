import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { READ_MARKS_CHANNEL } from '../../src/upstreams/sharedReads';
import { reservationRecord } from '../support/fixtures';
import { eventually, spawnGateway, type GatewayProcess } from '../support/gatewayProcess';
import { describeWithRedis, startRedisServer, type RedisServer } from '../support/redisServer';
import { sendJson, startScriptedServer, type ScriptedServer } from '../support/upstreamServer';

const RESERVATION_ID = randomUUID();
const READ = `{ reservation(id: "${RESERVATION_ID}") { id } }`;
const BOOK = `mutation { createReservation(input: { revenueCenterId: "${randomUUID()}", date: "2099-12-24T19:30", guestCount: 2, customer: { firstName: "Ada" } }) { reservation { id } } }`;
const VENUE = { 'reservation-access-token': 'res-token-venue-a' };

const withRedis = describeWithRedis('the shared reads replica tests');

/** Two gateway processes on one real Redis in front of one reservation service. */
withRedis('shared reads across replicas', () => {
  let redis: RedisServer;
  let upstream: ScriptedServer;
  const gateways: GatewayProcess[] = [];
  let a: string;
  let b: string;

  async function start(): Promise<string> {
    const gateway = spawnGateway('src/main.ts', {
      NODE_ENV: 'test',
      RESERVATION_BASE_URL: upstream.url,
      POS_BASE_URL: upstream.url,
      REDIS_URL: redis.url,
      PORT: '0',
      HOST: '127.0.0.1',
      SHUTDOWN_DELAY_MS: '0',
    });
    gateways.push(gateway);
    const listening = await gateway.waitForLog('gateway listening', 30_000);
    await gateway.waitForLog('gateway ready', 30_000);
    return `http://127.0.0.1:${String(listening.port)}`;
  }

  async function ask(gateway: string, query: string, headers: Record<string, string> = {}): Promise<{ age: string | null; errors?: unknown }> {
    const res = await fetch(`${gateway}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...VENUE, ...headers }, body: JSON.stringify({ query }) });
    const body = (await res.json()) as { errors?: unknown };
    return { age: res.headers.get('age'), errors: body.errors };
  }

  beforeAll(async () => {
    redis = await startRedisServer();
    upstream = await startScriptedServer((req, res) => {
      if (req.method === 'POST') return sendJson(res, 201, { reservation: reservationRecord({ id: randomUUID(), check: null }) });
      sendJson(res, 200, { reservation: reservationRecord({ id: RESERVATION_ID, check: null }) });
    });
    [a, b] = await Promise.all([start(), start()]);
    // Both subscribers are listening before any mark is published.
    const inspect = new Redis(redis.url);
    try {
      const subscribers = async () => Number(((await inspect.pubsub('NUMSUB', READ_MARKS_CHANNEL)) as [string, number])[1]);
      expect(await eventually(async () => (await subscribers()) === 2, 15_000)).toBe(true);
    } finally {
      inspect.disconnect();
    }
  }, 60_000);

  afterAll(async () => {
    for (const gateway of gateways) gateway.kill();
    await Promise.all(gateways.map((g) => g.exited));
    await redis?.stop();
    await upstream?.close();
  });

  it("drops the other replica's kept answers within 1 s of a write through one", async () => {
    const cached = { 'cache-control': 'max-age=30' };
    await ask(b, READ, cached);
    expect((await ask(b, READ, cached)).age).not.toBeNull();
    const booked = await ask(a, BOOK);
    expect(booked.errors).toBeUndefined();
    const written = Date.now();
    const gets = () => upstream.requests.filter((r) => r.method === 'GET').length;
    const before = gets();
    // Polled: the first read on B that is not answered from what B kept before the write.
    expect(await eventually(async () => (await ask(b, READ, cached)).age === null, 1000)).toBe(true);
    expect(Date.now() - written).toBeLessThan(1000);
    expect(gets()).toBe(before + 1);
  });
});
