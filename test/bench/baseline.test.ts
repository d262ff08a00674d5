import { mkdtempSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBaseline, type Baseline } from '../../bench/baseline';
import { benchManifest, type ScenarioName } from '../../bench/operations';
import { benchNow, scenarioRequest } from '../../bench/scenarios';
import { startBenchUpstreams, type BenchUpstreams } from '../../bench/upstreams';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/logger';
import { SAMPLE, SANDBOX_CREDENTIALS } from '../../src/sandbox';
import { createGateway, type Gateway } from '../../src/server';

/**
 * The benchmark compares the gateway with a hand-written baseline; the comparison means something only while both
 * answer the same JSON with the same upstream calls. This holds them to it.
 */
describe('benchmark baseline', () => {
  let upstreams: BenchUpstreams;
  let gateway: Gateway;
  let gatewayUrl: string;
  let baseline: Baseline;
  let baselineUrl: string;

  beforeAll(async () => {
    upstreams = await startBenchUpstreams({ now: benchNow(), slowDelayMs: 5 });
    const manifest = join(mkdtempSync(join(tmpdir(), 'tablegraph-bench-')), 'trusted-documents.json');
    writeFileSync(manifest, benchManifest());
    const config = loadConfig({ NODE_ENV: 'production', SINGLE_REPLICA: 'true', LOG_LEVEL: 'silent', RESERVATION_BASE_URL: upstreams.fast.reservationUrl, POS_BASE_URL: upstreams.fast.posUrl, TRUSTED_DOCUMENTS: manifest });
    gateway = createGateway({ config, logger: createLogger({ level: 'silent' }) });
    await gateway.start();
    gatewayUrl = await listen(gateway.server);
    baseline = createBaseline(upstreams.fast);
    baselineUrl = await listen(baseline.server);
  });
  afterAll(async () => {
    await gateway.stop();
    await baseline.close();
    await upstreams.close();
  });

  async function post(base: string, scenario: ScenarioName) {
    const request = scenarioRequest(scenario, upstreams.sandbox.state);
    upstreams.resetCalls();
    const res = await fetch(base + request.path, { method: request.method, headers: request.headers, body: request.body });
    return { status: res.status, body: (await res.json()) as { data?: unknown; errors?: unknown }, calls: upstreams.calls() };
  }

  it.each<[ScenarioName, { reservation: number; pos: number }]>([
    ['S1', { reservation: 0, pos: 1 }],
    ['S1id', { reservation: 0, pos: 1 }],
    ['S2', { reservation: 1, pos: 30 }],
    ['S3', { reservation: 1, pos: 0 }],
  ])('answers %s with the same JSON as the gateway, through the same upstream calls', async (scenario, calls) => {
    const fromGateway = await post(gatewayUrl, scenario);
    const fromBaseline = await post(baselineUrl, scenario);
    expect(fromGateway.body.errors).toBeUndefined();
    // Every scenario is La Terrazza's: each call is counted under its venue too (S4 tells venues apart by it).
    const counted = { ...calls, byVenue: { laTerrazza: calls.reservation + calls.pos } };
    expect(fromGateway.calls).toEqual(counted);
    expect(fromBaseline.calls).toEqual(counted);
    expect(fromBaseline.status).toBe(200);
    expect(fromBaseline.body).toEqual(fromGateway.body);
  });

  it('serves S2 with 50 reservations, 30 of them distinct checks, so its calls are what the issue counts', async () => {
    const { body } = await post(gatewayUrl, 'S2');
    const nodes = (body.data as { reservations: { nodes: Array<{ check: { id: string } | null }> } }).reservations.nodes;
    expect(nodes).toHaveLength(50);
    expect(new Set(nodes.map((n) => n.check?.id).filter(Boolean)).size).toBe(30);
  });

  it('replays the sandbox records byte for byte, so repeated calls cost a lookup', async () => {
    const id = SAMPLE.laTerrazza.closedCheckId;
    const checks = upstreams.sandbox.state.tenants.laTerrazza.checks;
    const get = async () => {
      const res = await fetch(`${upstreams.fast.posUrl}/checks/${id}`, { headers: { 'pos-access-token': SANDBOX_CREDENTIALS.laTerrazza['Pos-Access-Token'] } });
      return { status: res.status, text: await res.text() };
    };
    const first = await get();
    const record = checks.get(id)!;
    checks.delete(id); // the sandbox itself would now answer 404
    try {
      expect(first.status).toBe(200);
      expect(await get()).toEqual(first);
    } finally {
      checks.set(id, record);
    }
  });

  it('delays the slow pair by its delay', async () => {
    const started = performance.now();
    const res = await fetch(`${upstreams.slow.posUrl}/employees`, { headers: { 'pos-access-token': 'sandbox-pos-token-la-terrazza' } });
    await res.arrayBuffer();
    expect(res.status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(4);
  });
});

function listen(server: import('node:http').Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}
