import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuTimeMs, peakRssMiB, processTree } from '../../bench/processes';
import { eventually } from '../support/gatewayProcess';

/** What the benchmark reads of a server under test from /proc: its process tree, CPU time and peak RSS (Linux). */
describe('bench processes', () => {
  it('reads a process and its children: the tree, their CPU time summed, their peak RSS summed', async () => {
    // A parent that forks a child which burns 300 ms of CPU.
    const dir = mkdtempSync(join(tmpdir(), 'bench-processes-'));
    const script = join(dir, 'tree.js');
    writeFileSync(
      script,
      `const { fork } = require('node:child_process');
      if (process.argv[2] === 'child') { while (process.cpuUsage().user < 300000); }
      else fork(__filename, ['child']);
      setInterval(() => {}, 1000);`,
    );
    const parent = spawn(process.execPath, [script], { stdio: 'ignore' });
    try {
      expect(await eventually(() => processTree(parent.pid).length === 2)).toBe(true);
      const [, child] = processTree(parent.pid);
      expect(child).not.toBe(parent.pid);
      expect(await eventually(() => (cpuTimeMs(child) ?? 0) >= 300)).toBe(true);
      expect(cpuTimeMs(parent.pid)!).toBeGreaterThanOrEqual(cpuTimeMs(child)!);
      expect(peakRssMiB(parent.pid)!).toBeGreaterThan(peakRssMiB(child)!);
      expect(processTree(process.pid)).toContain(parent.pid);
    } finally {
      for (const pid of processTree(parent.pid).reverse()) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
