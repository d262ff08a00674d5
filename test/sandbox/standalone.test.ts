import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { eventually, spawnGateway, type GatewayProcess } from '../support/gatewayProcess';
import { freePort } from '../support/net';
import { fencedBlocks, readDoc, readmeSection } from '../support/readme';

const SMOKE = readmeSection('Smoke test', 'docs/operations.md').join('\n');
const blocks = fencedBlocks(SMOKE).filter((b) => b.lang === 'sh');
/** The documented `npm start` line: its settings, as `VAR=value` words before `npm start`. */
const startLine = blocks.map((b) => b.text.replace(/\\\n/g, ' ')).flatMap((t) => t.split('\n')).find((l) => /\bnpm start\b/.test(l))!;
const curlBlock = blocks.find((b) => /^curl /m.test(b.text))!;

function bash(command: string): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile('bash', ['-c', command], { timeout: 15_000, env: { PATH: process.env.PATH ?? '' } }, (error, stdout) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout });
    });
  });
}

/** `npm run sandbox` (src/sandbox/standalone.ts) as its own process, and docs/operations.md's smoke test against it. */
describe('npm run sandbox', () => {
  let sandbox: GatewayProcess;
  let gateway: GatewayProcess | undefined;
  let ports: { reservation: number; pos: number; gateway: number };

  beforeAll(async () => {
    ports = { reservation: await freePort(), pos: await freePort(), gateway: await freePort() };
    sandbox = spawnGateway(join('src', 'sandbox', 'standalone.ts'), { SANDBOX_RESERVATION_PORT: String(ports.reservation), SANDBOX_POS_PORT: String(ports.pos) });
    if (!(await eventually(() => sandbox.stdout().includes('POS_BASE_URL='), 15_000))) throw new Error(`npm run sandbox printed nothing:\n${sandbox.stdout()}\n${sandbox.stderr()}`);
  }, 20_000);
  afterAll(() => {
    gateway?.kill();
    sandbox?.kill();
  });

  it('is the script of package.json, on the ports the docs name by default', () => {
    const pkg = JSON.parse(readDoc('package.json')) as { scripts: Record<string, string> };
    expect(pkg.scripts.sandbox).toBe('tsx src/sandbox/standalone.ts');
    expect(startLine).toContain('RESERVATION_BASE_URL=http://127.0.0.1:4001');
    expect(startLine).toContain('POS_BASE_URL=http://127.0.0.1:4002');
    expect(SMOKE).toMatch(/SANDBOX_RESERVATION_PORT` \(default 4001\)/);
  });

  it('listens on the ports it is given and prints them', () => {
    expect(sandbox.stdout()).toContain(`RESERVATION_BASE_URL=http://127.0.0.1:${ports.reservation}`);
    expect(sandbox.stdout()).toContain(`POS_BASE_URL=http://127.0.0.1:${ports.pos}`);
  });

  it('answers a day view through the documented npm start line and curl command', async () => {
    // The documented settings, with the test's ports for 4001, 4002 and 4000 (in one pass: a port given for 4001 may
    // itself begin with 4002); the TypeScript entry stands for the build.
    const settings = Object.fromEntries(
      startLine
        .split(/\s+/)
        .filter((w) => /^[A-Z_]+=\S+$/.test(w))
        .map((w) => w.split('='))
        .map(([name, value]) => [name, value.replace(/:(4001|4002)\b/, (_, port: string) => `:${port === '4001' ? ports.reservation : ports.pos}`)]),
    );
    expect(Object.keys(settings).sort()).toEqual(['POS_BASE_URL', 'RESERVATION_BASE_URL', 'SINGLE_REPLICA', 'TRUSTED_DOCUMENTS']);
    gateway = spawnGateway(join('src', 'main.ts'), { ...settings, PORT: String(ports.gateway), HOST: '127.0.0.1' });
    await gateway.waitForLog('gateway ready', 20_000);

    const result = await bash(curlBlock.text.replace(/localhost:4000/g, `127.0.0.1:${ports.gateway}`));
    expect(result.code).toBe(0);
    const body = JSON.parse(result.stdout) as { data?: { reservations: { nodes: unknown[] } }; errors?: unknown };
    expect(body.errors).toBeUndefined();
    expect(body.data!.reservations.nodes.length).toBeGreaterThan(0);
    // By its trusted id, as the apps send it.
    expect(await gateway.waitForLog('graphql request')).toMatchObject({ operationName: 'DayView', document: 'trusted', httpStatus: 200 });
  }, 30_000);

  it('stops naming a port setting that is not a port', async () => {
    const bad = spawnGateway(join('src', 'sandbox', 'standalone.ts'), { SANDBOX_POS_PORT: 'forty' });
    try {
      expect(await bad.exited).toBe(1);
      expect(bad.stderr()).toContain('SANDBOX_POS_PORT');
    } finally {
      bad.kill();
    }
  });
});
