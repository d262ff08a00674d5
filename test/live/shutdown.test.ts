import { eventually, spawnGateway, type GatewayProcess } from '../support/gatewayProcess';
import { liveClient, multipartSubscribe, sseSubscribe, startLiveUpstreams, subscribe, LIVE_DAY, type LiveUpstreams } from '../support/liveClient';
import { LA_TERRAZZA } from '../support/stack';

const DATE = '2026-11-21';

describe('live subscriptions on SIGTERM', () => {
  let upstreams: LiveUpstreams;
  let gateway: GatewayProcess;

  beforeAll(async () => {
    upstreams = await startLiveUpstreams();
  });

  afterAll(async () => {
    gateway?.kill();
    await upstreams.close();
  });

  it('lets an HTTP request in flight finish, then completes every transport\'s subscriptions, each recorded, and exits 0 without waiting for the drain timeout', async () => {
    gateway = spawnGateway('src/main.ts', {
      RESERVATION_BASE_URL: upstreams.reservation.url,
      POS_BASE_URL: upstreams.pos.url,
      PORT: '0',
      HOST: '127.0.0.1',
      LIVE_POLL_SECONDS: '0.2',
      SHUTDOWN_DELAY_MS: '0',
      DRAIN_TIMEOUT_MS: '60000',
      SINGLE_REPLICA: 'true',
    });
    const listening = await gateway.waitForLog('gateway listening');
    await gateway.waitForLog('gateway ready');
    const url = `http://127.0.0.1:${String(listening.port)}`;

    const ws = liveClient(url, LA_TERRAZZA);
    const overWs = subscribe(ws, { date: DATE });
    const overSse = sseSubscribe(url, LA_TERRAZZA, { query: LIVE_DAY, variables: { date: DATE } });
    const overMultipart = multipartSubscribe(url, LA_TERRAZZA, LIVE_DAY, { date: DATE });
    const all = [overWs, overSse, overMultipart];
    expect(await eventually(() => all.every((s) => s.events.length === 1))).toBe(true);

    // An ordinary request in flight when the signal comes: its upstream answers a while later.
    upstreams.delayMs = (path) => (path.includes('per_page=7') ? 800 : 0);
    const slow = fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...LA_TERRAZZA },
      body: JSON.stringify({ query: `query Slow { reservations(date: "${DATE}", perPage: 7) { nodes { id } } }` }),
    });
    expect(await eventually(() => upstreams.reservation.requests.some((r) => r.url.includes('per_page=7')))).toBe(true);
    gateway.child.kill('SIGTERM');

    expect((await slow).status).toBe(200);
    expect(await gateway.exited).toBe(0);
    expect(await eventually(() => overSse.completed && overMultipart.completed && ws.closeCodes.length > 0)).toBe(true);
    expect(ws.closeCodes).toEqual([1001]);
    for (const s of [overSse, overMultipart]) expect(s.error).toBeUndefined();

    const lines = gateway.logs().filter((l) => l.msg === 'graphql request');
    const order = lines.map((l) => l.transport ?? l.operationName);
    // The request in flight was written first; then each subscription, once, with its transport.
    expect(order).toEqual(['Slow', ...order.slice(1)]);
    expect(order.slice(1).sort()).toEqual(['multipart', 'sse', 'ws']);
    expect(gateway.logs().some((l) => l.msg === 'drain timeout passed: cut the requests still in flight')).toBe(false);
    await ws.dispose();
  });
});
