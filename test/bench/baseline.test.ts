import { mkdtempSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBaseline, type Baseline } from '../../bench/baseline';
import { benchManifest, type ScenarioName } from '../../bench/operations';
import { startTarget, stopProcess, type Target } from '../../bench/processes';
import { benchNow, connectionHeaders, scenarioRequest } from '../../bench/scenarios';
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
  /** The Mercurius reference in a process of its own, as the bench runs it (Mercurius' dependencies are ES modules jest cannot load). */
  let reference: Target;
  let referenceUrl: string;

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
    reference = await startTarget('mercurius', ['--import', 'tsx', join(__dirname, '../../bench/mercuriusMain.ts')], { RESERVATION_BASE_URL: upstreams.fast.reservationUrl, POS_BASE_URL: upstreams.fast.posUrl });
    referenceUrl = reference.url;
  });
  afterAll(async () => {
    await gateway.stop();
    await baseline.close();
    await stopProcess(reference.process);
    await upstreams.close();
  });

  async function post(base: string, scenario: ScenarioName, headers?: Record<string, string>) {
    const request = scenarioRequest(scenario, upstreams.sandbox.state);
    upstreams.resetCalls();
    const res = await fetch(base + request.path, { method: request.method, headers: headers ?? request.headers, body: request.body });
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
    const counted = { ...calls, byVenue: { laTerrazza: calls.reservation + calls.pos }, credentials: (calls.reservation > 0 ? 1 : 0) + (calls.pos > 0 ? 1 : 0) };
    expect(fromGateway.calls).toEqual(counted);
    expect(fromBaseline.calls).toEqual(counted);
    expect(fromBaseline.status).toBe(200);
    expect(fromBaseline.body).toEqual(fromGateway.body);
  });

  it.each<[ScenarioName, { reservation: number; pos: number }]>([
    ['S1', { reservation: 0, pos: 1 }],
    ['S2', { reservation: 1, pos: 30 }],
  ])('has the Mercurius reference answer %s with the same JSON as the gateway, through the same upstream calls', async (scenario, calls) => {
    const fromGateway = await post(gatewayUrl, scenario);
    const fromReference = await post(referenceUrl, scenario);
    expect(fromGateway.body.errors).toBeUndefined();
    expect(fromReference.status).toBe(200);
    expect(fromReference.calls).toEqual(fromGateway.calls);
    expect(fromReference.calls).toMatchObject(calls);
    expect(fromReference.body).toEqual(fromGateway.body);
  });

  it.each<ScenarioName>(['S1d', 'S2d'])('answers %s on each connection\'s own credentials with the venue\'s records, on every side', async (scenario) => {
    const request = scenarioRequest(scenario, upstreams.sandbox.state);
    const answers: unknown[] = [];
    for (const base of [gatewayUrl, referenceUrl, baselineUrl]) {
      for (const n of [0, 1]) {
        const { status, body, calls } = await post(base, scenario, connectionHeaders(request, n));
        expect(status).toBe(200);
        expect(body.errors).toBeUndefined();
        expect(calls.byVenue).toEqual({ laTerrazza: calls.reservation + calls.pos });
        answers.push(body);
      }
    }
    for (const a of answers) expect(a).toEqual(answers[0]);
    expect((await post(gatewayUrl, scenario, connectionHeaders(request, 0))).body).toEqual((await post(gatewayUrl, scenario)).body);
  });

  it('sees each connection\'s credentials as a caller of their own', async () => {
    const request = scenarioRequest('S1d', upstreams.sandbox.state);
    upstreams.resetCalls();
    await Promise.all([0, 1, 2].map((n) => fetch(gatewayUrl + request.path, { method: 'POST', headers: connectionHeaders(request, n), body: request.body }).then((r) => r.text())));
    expect(upstreams.calls()).toMatchObject({ pos: 3, credentials: 3 });
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
