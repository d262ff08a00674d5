import { eventually, sleep, spawnGateway, type GatewayProcess } from '../support/gatewayProcess';
import { liveClient, startLiveUpstreams, subscribe, type LiveSubscription, type LiveUpstreams } from '../support/liveClient';
import { describeWithRedis, startRedisServer, type RedisServer } from '../support/redisServer';
import { LA_TERRAZZA } from '../support/stack';
import { startTcpProxy, type TcpProxy } from '../support/tcpProxy';

// Each test starts two gateway processes: on a loaded two-core machine a start alone can take seconds.
jest.setTimeout(60_000);

const DATE = '2026-11-21';
const TOKEN = LA_TERRAZZA['Reservation-Access-Token'];
const POLL_MS = 200;

let upstreams: LiveUpstreams;
const processes: GatewayProcess[] = [];
const clients: Array<{ dispose(): void | Promise<void> }> = [];

beforeEach(async () => {
  upstreams = await startLiveUpstreams();
});

/** Redis servers of the test, stopped after its gateway processes so that none sees its Redis go first. */
const redisServers: RedisServer[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map(async (c) => c.dispose()));
  for (const p of processes.splice(0)) p.kill();
  await Promise.all(redisServers.splice(0).map((r) => r.stop()));
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

/** The step of the data an event carries: the upstream's status is `confirmed` (0), then `step-1`, `step-2`, … */
function stepOf(event: LiveSubscription['events'][number]): number {
  const status = event.data?.reservations?.nodes[0]?.status;
  if (status === 'confirmed') return 0;
  if (!status?.startsWith('step-')) throw new Error(`not a step: ${JSON.stringify(event)}`);
  return Number(status.slice('step-'.length));
}

/** Each subscriber's steps, in the order it received them. */
const stepsOf = (subscriptions: LiveSubscription[]) => subscriptions.map((s) => s.events.map(stepOf));

/** Steps that only grow: never an older snapshot after a newer one, never the same one twice. */
const inOrder = (steps: number[]) => steps.every((step, i) => i === 0 || step > steps[i - 1]);

/** The reads each process made over `ms`. */
async function readsOver(oneUrl: string, twoUrl: string, ms: number): Promise<number[]> {
  const before = await Promise.all([pollsOf(oneUrl), pollsOf(twoUrl)]);
  await sleep(ms);
  return (await Promise.all([pollsOf(oneUrl), pollsOf(twoUrl)])).map((n, i) => n - before[i]);
}

/** Polls this process has run, read off its /metrics. */
async function pollsOf(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return [...text.matchAll(/^tablegraph_live_polls_total\{[^}]*\} (\d+)/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
}

describeWithRedis('live subscriptions across gateway processes')('live subscriptions across gateway processes', () => {
  let redis: RedisServer;

  // A Redis of its own for each test: Redis keeps a live poll's last result for the processes that join it, so a test
  // started within its lifetime would be sent the test before's (another upstream's check, a later status) first.
  beforeEach(async () => {
    redis = await startRedisServer();
    redisServers.push(redis);
  });

  it('poll once between two processes on one Redis, fan each change out to both, and the survivor takes over when the poller dies', async () => {
    const one = await startGateway({ REDIS_URL: redis.url });
    const two = await startGateway({ REDIS_URL: redis.url });
    const onOne: LiveSubscription[] = Array.from({ length: 3 }, () => subscribe(connect(one.url), { date: DATE }));
    const onTwo: LiveSubscription[] = Array.from({ length: 3 }, () => subscribe(connect(two.url), { date: DATE }));
    const all = [...onOne, ...onTwo];
    expect(await eventually(() => all.every((s) => s.events.length === 1))).toBe(true);

    // A process whose Redis connection is still being made reads for its own subscribers; then one reads for both.
    expect(await eventually(async () => (await readsOver(one.url, two.url, 3 * POLL_MS)).includes(0))).toBe(true);
    // Six reads take at least five intervals when one process reads; two reading would do them in about three.
    const started = performance.now();
    const calls = upstreams.listCalls(TOKEN);
    const before = await Promise.all([pollsOf(one.url), pollsOf(two.url)]);
    expect(await eventually(() => upstreams.listCalls(TOKEN) >= calls + 6)).toBe(true);
    expect(performance.now() - started).toBeGreaterThanOrEqual(5 * POLL_MS * 0.9);
    const [pollsOne, pollsTwo] = (await Promise.all([pollsOf(one.url), pollsOf(two.url)])).map((n, i) => n - before[i]);
    // A lease that lapsed while a loaded holder was late to renew it moves once: the other reads once.
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
    expect(performance.now() - killed).toBeLessThan(4 * POLL_MS + 1000);
    expect(survivors[0].events[2].data?.reservations?.nodes[0]?.status).toBe('paid');
  });

  it('never send a subscriber an older snapshot after a newer one when the poller is killed in the middle of reading a change', async () => {
    const one = await startGateway({ REDIS_URL: redis.url });
    const two = await startGateway({ REDIS_URL: redis.url });
    const onOne = Array.from({ length: 2 }, () => subscribe(connect(one.url), { date: DATE }));
    const onTwo = Array.from({ length: 2 }, () => subscribe(connect(two.url), { date: DATE }));
    await eventually(() => [...onOne, ...onTwo].every((s) => s.events.length > 0));
    expect(stepsOf([...onOne, ...onTwo])).toEqual(Array(4).fill([0]));
    // Reads answer late, so the change below is still being read when the poller dies.
    upstreams.delayMs = (url) => (url.startsWith('/v1/reservations') ? 150 : 0);
    let reads: number[] = [];
    expect(await eventually(async () => (reads = await readsOver(one.url, two.url, 3 * POLL_MS)).includes(0))).toBe(true);
    const [poller, survivors] = reads[0] > reads[1] ? [one, onTwo] : [two, onOne];

    upstreams.status = 'step-1';
    const asked = upstreams.listCalls(TOKEN);
    expect(await eventually(() => upstreams.listCalls(TOKEN) > asked, 5000)).toBe(true);
    poller.process.child.kill('SIGKILL');
    await poller.process.exited;
    expect(await eventually(() => survivors.every((s) => s.events.length > 0 && stepOf(s.events.at(-1)!) === 1))).toBe(true);
    for (const step of [2, 3]) {
      upstreams.status = `step-${step}`;
      expect(await eventually(() => survivors.every((s) => stepOf(s.events.at(-1)!) === step))).toBe(true);
    }
    for (const steps of stepsOf([...onOne, ...onTwo])) expect({ steps, inOrder: inOrder(steps) }).toEqual({ steps, inOrder: true });
  });

  describe('when one process\'s Redis commands stall past their timeout', () => {
    let proxy: TcpProxy;

    beforeEach(async () => {
      const { port } = new URL(redis.url);
      proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(port) });
    });

    afterEach(async () => {
      proxy.resume();
      await proxy.close();
    });

    it('never send a subscriber an older snapshot after a newer one, and every subscriber gets each change', async () => {
      // The process whose Redis stalls starts first and reads first: its lease goes while it cannot renew it.
      const stalling = await startGateway({ REDIS_URL: `redis://127.0.0.1:${proxy.port}` });
      const onStalling = Array.from({ length: 2 }, () => subscribe(connect(stalling.url), { date: DATE }));
      expect(await eventually(() => onStalling.every((s) => s.events.length === 1))).toBe(true);
      const steady = await startGateway({ REDIS_URL: redis.url });
      const onSteady = Array.from({ length: 2 }, () => subscribe(connect(steady.url), { date: DATE }));
      const all = [...onStalling, ...onSteady];
      expect(await eventually(() => all.every((s) => s.events.length === 1))).toBe(true);

      // Two changes within each stall, each read by the process that took the lease and, before this was fixed, by
      // the stalled one too (a hold that timed out was taken as held): its own newer read came before the other's
      // older one, which Redis delivered when the stall ended.
      for (const step of [2, 4]) {
        proxy.stall();
        upstreams.status = `step-${step - 1}`;
        await sleep(600);
        upstreams.status = `step-${step}`;
        await sleep(600);
        proxy.resume();
        expect(await eventually(() => all.every((s) => stepOf(s.events.at(-1)!) === step))).toBe(true);
      }
      for (const steps of stepsOf(all)) expect({ steps, inOrder: inOrder(steps) }).toEqual({ steps, inOrder: true });
    });
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
