import { eventually, spawnGateway, type GatewayProcess } from '../support/gatewayProcess';
import { liveClient, startLiveUpstreams, subscribe, type LiveSubscription, type LiveUpstreams } from '../support/liveClient';
import { describeWithRedis, startRedisServer, type RedisServer } from '../support/redisServer';
import { LA_TERRAZZA } from '../support/stack';

const DATE = '2026-11-21';
const TOKEN = LA_TERRAZZA['Reservation-Access-Token'];
const POLL_MS = 200;

let upstreams: LiveUpstreams;
const processes: GatewayProcess[] = [];
const clients: Array<{ dispose(): void | Promise<void> }> = [];

beforeEach(async () => {
  upstreams = await startLiveUpstreams();
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map(async (c) => c.dispose()));
  for (const p of processes.splice(0)) p.kill();
  await upstreams.close();
});

async function startGateway(env: Record<string, string>): Promise<{ process: GatewayProcess; url: string }> {
  const gateway = spawnGateway('src/main.ts', {
    RESERVATION_BASE_URL: upstreams.reservation.url,
    POS_BASE_URL: upstreams.pos.url,
    PORT: '0',
    HOST: '127.0.0.1',
    LIVE_POLL_SECONDS: String(POLL_MS / 1000),
    UPSTREAM_RETRIES: '0',
    SHUTDOWN_DELAY_MS: '0',
    ...env,
  });
  processes.push(gateway);
  const listening = await gateway.waitForLog('gateway listening');
  await gateway.waitForLog('gateway ready');
  return { process: gateway, url: `http://127.0.0.1:${String(listening.port)}` };
}

function connect(url: string) {
  const client = liveClient(url, LA_TERRAZZA);
  clients.push(client);
  return client;
}

/** Polls this process has run, read off its /metrics. */
async function pollsOf(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return [...text.matchAll(/^tablegraph_live_polls_total\{[^}]*\} (\d+)/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
}

describeWithRedis('live subscriptions across gateway processes')('live subscriptions across gateway processes', () => {
  let redis: RedisServer;

  beforeAll(async () => {
    redis = await startRedisServer();
  });

  afterAll(async () => {
    await redis.stop();
  });

  it('poll once between two processes on one Redis, fan each change out to both, and the survivor takes over when the poller dies', async () => {
    const one = await startGateway({ REDIS_URL: redis.url });
    const two = await startGateway({ REDIS_URL: redis.url });
    const onOne: LiveSubscription[] = Array.from({ length: 3 }, () => subscribe(connect(one.url), { date: DATE }));
    const onTwo: LiveSubscription[] = Array.from({ length: 3 }, () => subscribe(connect(two.url), { date: DATE }));
    const all = [...onOne, ...onTwo];
    expect(await eventually(() => all.every((s) => s.events.length === 1))).toBe(true);

    // Six reads take at least five intervals when one process reads; two reading would do them in about three.
    const started = performance.now();
    const calls = upstreams.listCalls(TOKEN);
    expect(await eventually(() => upstreams.listCalls(TOKEN) >= calls + 6)).toBe(true);
    expect(performance.now() - started).toBeGreaterThanOrEqual(5 * POLL_MS * 0.9);
    const [pollsOne, pollsTwo] = await Promise.all([pollsOf(one.url), pollsOf(two.url)]);
    expect(Math.min(pollsOne, pollsTwo)).toBeLessThanOrEqual(1);

    upstreams.status = 'seated';
    expect(await eventually(() => all.every((s) => s.events.length === 2))).toBe(true);
    expect(all.map((s) => s.events[1].data?.reservations?.nodes[0]?.status)).toEqual(Array(6).fill('seated'));

    // The poller dies without a word; the other process takes the lease within two intervals and reads on.
    const [poller, survivors] = pollsOne > pollsTwo ? [one, onTwo] : [two, onOne];
    poller.process.child.kill('SIGKILL');
    await poller.process.exited;
    upstreams.status = 'paid';
    const killed = performance.now();
    expect(await eventually(() => survivors.every((s) => s.events.length === 3))).toBe(true);
    // Two intervals to take the lease, one read, and the slack of a loaded machine.
    expect(performance.now() - killed).toBeLessThan(4 * POLL_MS + 500);
    expect(survivors[0].events[2].data?.reservations?.nodes[0]?.status).toBe('paid');
  });
});

describe('live subscriptions on SIGTERM', () => {
  it('close with 1001 once the HTTP requests in flight have finished', async () => {
    // One process, no Redis: a production start says so (SINGLE_REPLICA).
    const { process: gateway, url } = await startGateway({ SINGLE_REPLICA: 'true' });
    const client = connect(url);
    const live = subscribe(client, { date: DATE });
    expect(await eventually(() => live.events.length === 1)).toBe(true);

    // A query whose upstream answers after a second is in flight when the signal comes.
    upstreams.delayMs = (path) => (path.includes('per_page=7') ? 1000 : 0);
    let answered: number | undefined;
    const query = fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...LA_TERRAZZA },
      body: JSON.stringify({ query: `{ reservations(date: "${DATE}", perPage: 7) { nodes { id } } }` }),
    }).then(async (res) => {
      answered = performance.now();
      return { status: res.status, body: (await res.json()) as { data?: unknown } };
    });
    expect(await eventually(() => upstreams.reservation.requests.some((r) => r.url.includes('per_page=7')))).toBe(true);
    gateway.child.kill('SIGTERM');
    expect(await eventually(() => client.closeCodes.length > 0, 15_000)).toBe(true);
    const closed = performance.now();
    expect(client.closeCodes).toEqual([1001]);
    const response = await query;
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ reservations: { nodes: [expect.any(Object)] } });
    expect(answered).toBeLessThanOrEqual(closed);
    expect(await gateway.exited).toBe(0);
  });
});
