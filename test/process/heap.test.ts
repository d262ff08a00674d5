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
