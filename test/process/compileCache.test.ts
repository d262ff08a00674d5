import { buildSync } from 'esbuild';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { SAMPLE, startSandbox, type Sandbox } from '../../src/sandbox';
import { bundleOptions } from '../../tools/bundle/main';
import { ROOT, spawnGateway, type GatewayProcess } from '../support/gatewayProcess';
import { LA_TERRAZZA } from '../support/stack';
import { sendJson, startScriptedServer } from '../support/upstreamServer';

/**
 * `npm start` runs the gateway as one bundle compiled with a V8 code cache (src/start.ts, src/process/compileCache.ts).
 * The bundle is made here as `npm run bundle` makes it (its esbuild options, into a folder of this test), and run
 * with plain node in front of the sandbox services.
 */
const DIR = join(ROOT, 'dist', `compile-cache-test-${process.pid}`);
const BUNDLE = join(DIR, 'gateway.js');
const CACHE = `${BUNDLE}.v8cache`;
const START = join(DIR, 'src', 'start.js');
/** The loader in a folder without a bundle. */
const ALONE = join(DIR, 'alone', 'src', 'start.js');


const keyOf = (bundle: Buffer): Buffer => createHash('sha256').update(bundle).update(`\0${process.version}\0${process.arch}`).digest();

describe('npm start: the bundle and its compile cache', () => {
  let sandbox: Sandbox;
  let gateway: GatewayProcess | undefined;
  let writeRun: SpawnSyncReturns<string>;

  beforeAll(async () => {
    mkdirSync(DIR, { recursive: true });
    // The loader as one file too, at the place dist/src/start.js has beside dist/gateway.js; and alone.
    for (const outfile of [START, ALONE]) buildSync({ entryPoints: [join(ROOT, 'src', 'start.ts')], bundle: true, platform: 'node', outfile, logLevel: 'warning' });
    buildSync(bundleOptions(BUNDLE));
    writeRun = spawnSync(process.execPath, [START, '--write-compile-cache'], { encoding: 'utf8', env: { PATH: process.env.PATH }, timeout: 60_000 });
    sandbox = await startSandbox();
  }, 120_000); // esbuild and a whole gateway start, on a shared machine
  afterEach(() => {
    gateway?.kill();
    gateway = undefined;
  });
  afterAll(async () => {
    rmSync(DIR, { recursive: true, force: true });
    await sandbox?.close();
  });

  const start = async (env: Record<string, string> = {}): Promise<{ url: string; listening: Record<string, unknown> }> => {
    gateway = spawnGateway(START, { SINGLE_REPLICA: 'true', RESERVATION_BASE_URL: sandbox.reservationUrl, POS_BASE_URL: sandbox.posUrl, PORT: '0', HOST: '127.0.0.1', SHUTDOWN_DELAY_MS: '0', ...env }, { typescript: false });
    const listening = await gateway.waitForLog('gateway listening');
    await gateway.waitForLog('gateway ready');
    return { url: `http://127.0.0.1:${String(listening.port)}`, listening };
  };
  const stop = async (): Promise<void> => {
    gateway?.child.kill('SIGTERM');
    await gateway?.exited;
  };

  it('refuses to start without the bundle, naming it', () => {
    const run = spawnSync(process.execPath, [ALONE], { encoding: 'utf8', env: { PATH: process.env.PATH } });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`${join(DIR, 'alone', 'gateway.js')} is missing: npm run build writes it`);
  });

  it("writes the cache as the build's last step, keyed by the bundle's bytes and Node", () => {
    expect(writeRun.status).toBe(0);
    const check = spawnSync(process.execPath, [START, '--check-compile-cache'], { encoding: 'utf8', env: { PATH: process.env.PATH }, timeout: 60_000 });
    expect(check.stdout).toBe(`compile cache: a fresh start of ${BUNDLE} uses it\n`);
    const cache = readFileSync(CACHE);
    expect(cache.subarray(0, 32).equals(keyOf(readFileSync(BUNDLE)))).toBe(true);
    expect(cache.length).toBeGreaterThan(100_000);
  });

  it('starts from the cache and serves as the modules do', async () => {
    const written = statSync(CACHE).mtimeMs;
    const { url, listening } = await start();
    expect(listening.compileCache).toBe('used');
    const res = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...LA_TERRAZZA },
      body: JSON.stringify({ query: `{ check(id: "${SAMPLE.laTerrazza.openCheckId}") { id createdAt items { id } } }` }),
    });
    const body = (await res.json()) as { data: { check: { id: string; items: unknown[] } } };
    expect(res.status).toBe(200);
    expect(body.data.check.id).toBe(SAMPLE.laTerrazza.openCheckId);
    expect(body.data.check.items.length).toBeGreaterThan(0);
    await stop();
    expect(gateway?.logs().some((l) => l.msg === 'compile cache written')).toBe(false);
    expect(statSync(CACHE).mtimeMs).toBe(written);
  });

  it('compiles a changed bundle from its source and writes its cache anew, which the next start uses', async () => {
    appendFileSync(BUNDLE, '\n// changed\n');
    const first = await start();
    expect(first.listening.compileCache).toBe('compiled');
    await gateway!.waitForLog('compile cache written');
    await stop();
    expect(readFileSync(CACHE).subarray(0, 32).equals(keyOf(readFileSync(BUNDLE)))).toBe(true);
    const second = await start();
    expect(second.listening.compileCache).toBe('used');
  });

  it('traces with the OTLP exporter, whose dynamic import the bundle writes as a require', async () => {
    const collector = await startScriptedServer((_req, res) => sendJson(res, 200, {}));
    try {
      const { url, listening } = await start({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url });
      expect(listening.tracing).toBe(true);
      const res = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...LA_TERRAZZA },
        body: JSON.stringify({ query: 'query Staff { employees(perPage: 1) { nodes { id } } }' }),
      });
      expect(res.status).toBe(200);
      await stop();
      const payload = collector.requests.map((r) => r.body).join('\n');
      expect(payload).toContain('"name":"query Staff"');
      expect(payload).toContain('"name":"GET /employees"');
    } finally {
      await collector.close();
    }
  });

  it("leaves a cache V8 refuses (other V8 flags) for the starts it fits, and the build's writing run replaces it", async () => {
    const before = readFileSync(CACHE);
    const { listening } = await start({ NODE_OPTIONS: '--max-semi-space-size=32' });
    expect(listening.compileCache).toBe('compiled');
    await gateway!.waitForLog("compile cache kept: V8 refused it under this process's flags");
    await stop();
    expect(gateway?.logs().some((l) => l.msg === 'compile cache written')).toBe(false);
    expect(readFileSync(CACHE).equals(before)).toBe(true);
    // The build's check says so; its writing run (one process, whatever WORKERS says) writes one that fits.
    const env = { PATH: process.env.PATH, NODE_OPTIONS: '--max-semi-space-size=32' };
    const check = () => spawnSync(process.execPath, [START, '--check-compile-cache'], { encoding: 'utf8', env, timeout: 60_000 }).stdout;
    expect(check()).toBe(`warning: V8 refuses the compile cache of ${BUNDLE}; starts compile the bundle from its source\n`);
    expect(spawnSync(process.execPath, [START, '--write-compile-cache'], { encoding: 'utf8', env: { ...env, WORKERS: '2' }, timeout: 60_000 }).status).toBe(0);
    expect(check()).toBe(`compile cache: a fresh start of ${BUNDLE} uses it\n`);
  }, 120_000); // three more processes, each allowed 60 s
});
