import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { SAMPLE, SANDBOX_CREDENTIALS } from '../../src/sandbox';
import { freePort } from '../support/net';

describe('npm run dev', () => {
  it('starts the gateway with the simulated services, answers queries, prints the explorer URL, both venues and sample ids, and exits 0 on SIGTERM', async () => {
    const port = await freePort();
    const root = join(__dirname, '..', '..');
    const child = spawn(process.execPath, [join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), 'src/sandbox/dev.ts'], {
      cwd: root,
      env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const until = Date.now() + 15_000;
      while (!output.includes('Try:') && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      expect(output).toContain(`Explorer:  http://127.0.0.1:${port}/graphql`);
      expect(output).toContain(SANDBOX_CREDENTIALS.laTerrazza['Pos-Access-Token']);
      expect(output).toContain(SANDBOX_CREDENTIALS.bistroNord['Pos-Access-Token']);
      for (const id of [SAMPLE.laTerrazza.revenueCenterIds[0], SAMPLE.laTerrazza.tableIds[0], SAMPLE.laTerrazza.openCheckId, SAMPLE.laTerrazza.paymentRequestId]) {
        expect(output).toContain(id);
      }
      expect(output).toMatch(/BUSY_DATE\s+\d{4}-\d{2}-\d{2}/);

      const res = await fetch(`http://127.0.0.1:${port}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...SANDBOX_CREDENTIALS.laTerrazza },
        body: JSON.stringify({ query: '{ employees(perPage: 3) { nodes { firstName } pageInfo { totalCount } } }' }),
      });
      const body = (await res.json()) as { data: { employees: { nodes: unknown[]; pageInfo: { totalCount: number } } } };
      expect(body.data.employees.nodes).toHaveLength(3);
      expect(body.data.employees.pageInfo.totalCount).toBeGreaterThanOrEqual(40);

      const page = await fetch(`http://127.0.0.1:${port}/graphql`, { headers: { accept: 'text/html' } });
      expect(await page.text()).toContain(SANDBOX_CREDENTIALS.laTerrazza['Pos-Access-Token']);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  }, 30_000);
});
