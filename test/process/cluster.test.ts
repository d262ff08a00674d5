import { request } from 'node:http';
import { memoryBudgetBytes, workerHeapFlags } from '../../src/process/heap';
import { SAMPLE, startSandbox, type Sandbox } from '../../src/sandbox';
import { eventually, spawnGateway, type GatewayProcess } from '../support/gatewayProcess';
import { LA_TERRAZZA } from '../support/stack';

/** POST /graphql on a connection of its own, so that the primary hands it to the next worker in turn. */
function postOnNewConnection(url: string, requestId: string, query: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/graphql`, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'x-request-id': requestId, ...LA_TERRAZZA } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.once('error', reject);
    req.end(JSON.stringify({ query }));
  });
}

/** WORKERS > 1 (src/process/cluster.ts): the gateway as a primary and its worker processes, in front of the sandbox. */
describe('cluster', () => {
  let sandbox: Sandbox;
  let gateway: GatewayProcess | undefined;
  const spawn = (extra: Record<string, string>) =>
    spawnGateway('src/main.ts', { NODE_ENV: 'test', RESERVATION_BASE_URL: sandbox.reservationUrl, POS_BASE_URL: sandbox.posUrl, PORT: '0', HOST: '127.0.0.1', WORKERS: '2', ...extra });
  const readyLines = (g: GatewayProcess) => g.logs().filter((l) => l.msg === 'gateway ready');
  /** Waits for `count` workers to be ready; answers the shared port's address. */
  const ready = async (g: GatewayProcess, count = 2): Promise<string> => {
    expect(await eventually(() => readyLines(g).length >= count, 40_000)).toBe(true);
    const ports = new Set(g.logs().filter((l) => l.msg === 'gateway listening').map((l) => l.port));
    expect(ports.size).toBe(1);
    return `http://127.0.0.1:${String([...ports][0])}`;
  };

  afterEach(async () => {
    gateway?.kill();
    gateway = undefined;
    await sandbox?.close();
  });

  it('serves from two worker processes on one port, the primary serving nothing', async () => {
    sandbox = await startSandbox();
    gateway = spawn({ SHUTDOWN_DELAY_MS: '0' });
    const url = await ready(gateway);
    const workers = new Set(readyLines(gateway).map((l) => l.pid));
    expect(workers.size).toBe(2);
    expect(workers.has(gateway.child.pid)).toBe(false);

    for (let i = 0; i < 6; i++) {
      const res = await postOnNewConnection(url, `cluster-${i}`, '{ __typename }');
      expect(res).toEqual({ status: 200, body: '{"data":{"__typename":"Query"}}\n' });
    }
    const servedBy = new Set(gateway.logs().filter((l) => l.msg === 'graphql request' && String(l.requestId).startsWith('cluster-')).map((l) => l.pid));
    expect(servedBy).toEqual(workers);

    // Each worker's heap is sized from its share of the memory: the old space given, plus V8's young generation.
    const oldSpaceMiB = Number(workerHeapFlags(2, memoryBudgetBytes(), [])[0].split('=')[1]);
    for (const line of gateway.logs().filter((l) => l.msg === 'gateway listening')) {
      const heap = line.heap as { limitMiB: number };
      expect(heap.limitMiB).toBeGreaterThanOrEqual(oldSpaceMiB);
      expect(heap.limitMiB).toBeLessThan(oldSpaceMiB + 100);
    }

    gateway.child.kill('SIGTERM');
    expect(await gateway.exited).toBe(0);
  }, 60_000);

  it('on SIGTERM drains every worker: readiness 503, the request in flight finishes, each exits 0, then the primary', async () => {
    // Every upstream answer takes 3 s: the request below is in flight through the whole shutdown delay.
    sandbox = await startSandbox({ delayMs: 3000 });
    gateway = spawn({ SHUTDOWN_DELAY_MS: '800', DRAIN_TIMEOUT_MS: '20000' });
    const url = await ready(gateway);
    const slow = postOnNewConnection(url, 'cluster-slow', `query SlowCheck { check(id: "${SAMPLE.laTerrazza.openCheckId}") { id status } }`);
    expect(await eventually(() => sandbox.requests.length === 1)).toBe(true);

    gateway.child.kill('SIGTERM');
    expect(await eventually(async () => (await fetch(`${url}/readyz`).then((r) => r.status, () => 0)) === 503)).toBe(true);
    const res = await slow;
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ data: { check: { id: SAMPLE.laTerrazza.openCheckId, status: 'open' } } });
    expect(await gateway.exited).toBe(0);

    const logs = gateway.logs();
    const workerPids = readyLines(gateway).map((l) => l.pid);
    expect(logs.filter((l) => l.msg === 'draining').map((l) => l.pid).sort()).toEqual([...workerPids].sort());
    expect(logs.filter((l) => l.msg === 'worker stopped').map((l) => [l.workerPid, l.code]).sort()).toEqual(workerPids.map((pid) => [pid, 0]).sort());
    expect(logs.find((l) => l.requestId === 'cluster-slow')).toMatchObject({ msg: 'graphql request', outcome: 'success' });
    expect(logs.at(-1)).toMatchObject({ msg: 'stopped', pid: gateway.child.pid, exitCode: 0 });
    expect(gateway.stderr()).toBe('');
  }, 60_000);

  it('replaces a worker that dies, and keeps serving on the same port', async () => {
    sandbox = await startSandbox();
    gateway = spawn({ SHUTDOWN_DELAY_MS: '0' });
    const url = await ready(gateway);
    const [victim] = readyLines(gateway).map((l) => l.pid as number);
    process.kill(victim, 'SIGKILL');

    const replaced = await gateway.waitForLog('worker exited unexpectedly; starting another', 20_000);
    expect(replaced).toMatchObject({ workerPid: victim, signal: 'SIGKILL', restartInMs: expect.any(Number) });
    await ready(gateway, 3);
    const pids = readyLines(gateway).map((l) => l.pid);
    expect(new Set(pids).size).toBe(3);
    for (let i = 0; i < 4; i++) expect((await postOnNewConnection(url, `after-${i}`, '{ __typename }')).status).toBe(200);

    gateway.child.kill('SIGTERM');
    expect(await gateway.exited).toBe(0);
  }, 60_000);
});
