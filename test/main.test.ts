import { SAMPLE, startSandbox, type Sandbox } from '../src/sandbox';
import { eventually, spawnGateway, type GatewayProcess } from './support/gatewayProcess';
import { LA_TERRAZZA } from './support/stack';
import { leakedSecrets } from './support/leaks';

/** The gateway as its own process (src/main.ts, what `npm start` runs once built), in front of the sandbox services. */
describe('the gateway process', () => {
  let sandbox: Sandbox;
  let gateway: GatewayProcess | undefined;
  const envFor = (extra: Record<string, string>) => ({
    // One process, no Redis: production as a single replica runs it.
    SINGLE_REPLICA: 'true',
    RESERVATION_BASE_URL: sandbox.reservationUrl,
    POS_BASE_URL: sandbox.posUrl,
    PORT: '0',
    HOST: '127.0.0.1',
    ...extra,
  });
  const started = async (g: GatewayProcess): Promise<string> => {
    const listening = await g.waitForLog('gateway listening');
    await g.waitForLog('gateway ready');
    return `http://127.0.0.1:${String(listening.port)}`;
  };

  afterEach(async () => {
    gateway?.kill();
    gateway = undefined;
    await sandbox?.close();
  });

  it('starts with the retired BREAKER_WINDOW_SIZE set, and warns that it has no effect', async () => {
    sandbox = await startSandbox();
    gateway = spawnGateway('src/main.ts', envFor({ BREAKER_WINDOW_SIZE: '20' }));
    await started(gateway);
    const warning = gateway.logs().find((l) => typeof l.msg === 'string' && l.msg.startsWith('BREAKER_WINDOW_SIZE'));
    expect(warning).toMatchObject({ level: 40, msg: expect.stringContaining('BREAKER_WINDOW_MS') });
  });

  it('on SIGTERM turns readiness to 503, stops accepting connections, finishes the request in flight, and exits 0', async () => {
    // Every upstream answer takes 3 s: the request below is in flight through the whole shutdown delay.
    sandbox = await startSandbox({ delayMs: 3000 });
    gateway = spawnGateway('src/main.ts', envFor({ SHUTDOWN_DELAY_MS: '800', DRAIN_TIMEOUT_MS: '20000' }));
    const url = await started(gateway);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect((await fetch(`${url}/readyz`)).status).toBe(200);

    let settled = false;
    const slow = fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'drain-test-1', ...LA_TERRAZZA },
      body: JSON.stringify({ query: `query SlowCheck { check(id: "${SAMPLE.laTerrazza.openCheckId}") { id status } }` }),
    }).finally(() => (settled = true));
    expect(await eventually(() => sandbox.requests.length === 1)).toBe(true);

    gateway.child.kill('SIGTERM');
    // During the shutdown delay the gateway still answers, and says it is not ready.
    expect(await eventually(async () => (await fetch(`${url}/readyz`)).status === 503)).toBe(true);
    // Then it stops accepting connections, while the slow request is still running.
    const refused = await eventually(() => fetch(`${url}/healthz`).then(() => false, () => true));
    expect(refused).toBe(true);
    expect(settled).toBe(false);

    const res = await slow;
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe('drain-test-1');
    expect(await res.json()).toEqual({ data: { check: { id: SAMPLE.laTerrazza.openCheckId, status: 'open' } } });
    expect(await gateway.exited).toBe(0);

    const logs = gateway.logs();
    const messages = logs.map((l) => l.msg);
    expect(logs.find((l) => l.msg === 'draining')).toMatchObject({ signal: 'SIGTERM', shutdownDelayMs: 800, drainTimeoutMs: 20000 });
    expect(messages.indexOf('graphql request')).toBeGreaterThan(messages.indexOf('draining'));
    expect(messages.indexOf('stopped')).toBeGreaterThan(messages.indexOf('graphql request'));
    expect(logs.find((l) => l.msg === 'graphql request')).toMatchObject({ requestId: 'drain-test-1', operationName: 'SlowCheck', outcome: 'success' });
    expect(gateway.stderr()).toBe('');
  }, 30_000);

  it('on SIGINT with nothing in flight exits 0', async () => {
    sandbox = await startSandbox();
    gateway = spawnGateway('src/main.ts', envFor({ SHUTDOWN_DELAY_MS: '0' }));
    const url = await started(gateway);
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    gateway.child.kill('SIGINT');
    expect(await gateway.exited).toBe(0);
    expect(gateway.logs().find((l) => l.msg === 'draining')).toMatchObject({ signal: 'SIGINT' });
    expect(gateway.logs().at(-1)).toMatchObject({ msg: 'stopped' });
  }, 20_000);

  it('serves metrics and writes one JSON log line per GraphQL request, with no credential in it', async () => {
    sandbox = await startSandbox();
    gateway = spawnGateway('src/main.ts', envFor({ SHUTDOWN_DELAY_MS: '0' }));
    const url = await started(gateway);
    const res = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...LA_TERRAZZA },
      body: JSON.stringify({ query: `query Staff { employees(perPage: 2) { nodes { id } } }` }),
    });
    expect(res.status).toBe(200);
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toContain('tablegraph_graphql_requests_total{operation="Staff",outcome="success"} 1');
    expect(metrics).toContain('process_cpu_user_seconds_total');

    gateway.child.kill('SIGTERM');
    expect(await gateway.exited).toBe(0);
    const line = gateway.logs().find((l) => l.msg === 'graphql request');
    expect(line).toMatchObject({
      requestId: res.headers.get('x-request-id'),
      operationName: 'Staff',
      outcome: 'success',
      errorCodes: [],
      upstreamCalls: [{ service: 'pos', method: 'GET', route: '/employees', status: 200, durationMs: expect.any(Number) }],
    });
    expect(leakedSecrets(gateway.stdout(), Object.values(LA_TERRAZZA))).toEqual([]);
  }, 20_000);
});

describe('npm run dev', () => {
  it('logs in pretty form rather than JSON, and exits 0 on SIGINT', async () => {
    const dev = spawnGateway('src/sandbox/dev.ts', { PORT: '0', HOST: '127.0.0.1' });
    try {
      expect(await eventually(() => dev.stdout().includes('Explorer:'), 15_000)).toBe(true);
      expect(await eventually(() => /INFO.*gateway listening/.test(dev.stdout()))).toBe(true);
      expect(dev.logs()).toEqual([]);
      dev.child.kill('SIGINT');
      expect(await dev.exited).toBe(0);
    } finally {
      dev.kill();
    }
  }, 30_000);
});
