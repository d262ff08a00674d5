import { execFileSync } from 'node:child_process';
import { ROOT } from '../support/gatewayProcess';
import { heapGrowthFlag, memoryBudgetBytes, operatorNodeFlags, workerHeapFlags } from '../../src/process/heap';

const GiB = 2 ** 30;

describe('heap', () => {
  it("budgets the container's memory limit when it is below the machine's, else the machine's", () => {
    expect(memoryBudgetBytes(512 * 2 ** 20, 24 * GiB)).toBe(512 * 2 ** 20);
    // libuv's answer without a limit: 0, or cgroup v1's "unlimited" (a number beyond any machine).
    expect(memoryBudgetBytes(0, 24 * GiB)).toBe(24 * GiB);
    expect(memoryBudgetBytes(2 ** 64, 24 * GiB)).toBe(24 * GiB);
  });

  it("gives each worker a quarter of its share as old space, as Node sizes one process from the whole", () => {
    expect(workerHeapFlags(2, 4 * GiB, [])).toEqual(['--max-old-space-size=512']);
    expect(workerHeapFlags(4, 512 * 2 ** 20, [])).toEqual(['--max-old-space-size=128']);
    expect(workerHeapFlags(2, 256 * GiB, [])).toEqual(['--max-old-space-size=4096']);
  });

  it('leaves the heap to the operator when they sized it', () => {
    expect(workerHeapFlags(2, 4 * GiB, operatorNodeFlags([], '--enable-source-maps --max-old-space-size=300'))).toEqual([]);
    expect(workerHeapFlags(2, 4 * GiB, operatorNodeFlags(['--max-heap-size=700'], ''))).toEqual([]);
    expect(workerHeapFlags(2, 4 * GiB, operatorNodeFlags(['--max-semi-space-size=8'], ''))).toEqual(['--max-old-space-size=512']);
  });

  it('fixes the growth of the old space only where V8 would let it grow 4×, and not at 0', () => {
    expect(heapGrowthFlag(50, 4144 * 2 ** 20)).toBe('--heap-growing-percent=50');
    expect(heapGrowthFlag(50, 2 * GiB)).toBe('--heap-growing-percent=50');
    expect(heapGrowthFlag(50, 1072 * 2 ** 20)).toBeUndefined();
    expect(heapGrowthFlag(0, 4144 * 2 ** 20)).toBeUndefined();
  });
});

describe('applyHeapPolicy', () => {
  /** Runs a fresh node with a 3000 MiB old space (where V8 would grow 4×), full collections traced. */
  function heapControllerLines(percent: number): string[] {
    const script = `require('./src/process/heap').applyHeapPolicy(${percent}); let keep = []; for (let i = 0; i < 3; i++) { keep.push(new Array(1e6).fill(i)); gc(); }`;
    const out = execFileSync(process.execPath, ['--require', 'tsx/cjs', '--max-old-space-size=3000', '--expose-gc', '--trace-gc-verbose', '-e', script], { cwd: ROOT, encoding: 'utf8' });
    return out.split('\n').filter((l) => l.includes('[HeapController] Limit:'));
  }

  it('makes V8 grow the old space by the set share at each full collection, set while running', () => {
    const lines = heapControllerLines(50);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toMatch(/\(1\.5\)$/);
  });

  it('leaves V8 its own growth at 0', () => {
    expect(heapControllerLines(0).some((line) => !/\(1\.5\)$/.test(line))).toBe(true);
  });
});
