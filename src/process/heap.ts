import { totalmem } from 'node:os';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';

const MiB = 2 ** 20;

/**
 * From a heap limit of 2 GiB (V8's old space at 2 GiB × its pointer multiplier), V8 lets the old space grow up to
 * 4× between full collections instead of 1.3–2×: under a high allocation rate garbage piles up there, and the peak
 * resident set with it. Node derives the limit from the container's memory (a quarter of it), so this is a host
 * or container of 8 GiB or more.
 */
const GENEROUS_GROWTH_FROM_BYTES = 2 * 2 ** 30;

/** Each worker's old space: a quarter of its share of the memory, as Node sizes one process from the whole. */
const WORKER_HEAP_RATIO = 4;
const WORKER_HEAP_MIN_MIB = 128;
const WORKER_HEAP_MAX_MIB = 4096;

/** V8's flag for the old space's growth between full collections, in percent; 0 is V8's own growth. */
const GROWTH_FLAG = '--heap-growing-percent';

/** Flags that size the heap: when the operator passes one (NODE_OPTIONS or node's arguments), theirs wins. */
const HEAP_SIZE_FLAG = /^--(max-old-space-size|max-heap-size|max_old_space_size|max_heap_size)(=|$)/;

/**
 * The memory this process may use: the container's limit (cgroup v1 or v2, as libuv reads it) when there is one
 * below the machine's memory, otherwise the machine's.
 */
export function memoryBudgetBytes(constrained: number = process.constrainedMemory(), total: number = totalmem()): number {
  return constrained > 0 && constrained < total ? constrained : total;
}

/**
 * node flags for each of `workers` gateway processes sharing `budgetBytes`: without them every worker would size
 * its heap from the whole container, and N of them could outgrow it. None when the operator sized the heap.
 */
export function workerHeapFlags(workers: number, budgetBytes: number, operatorFlags: readonly string[]): string[] {
  if (operatorFlags.some((flag) => HEAP_SIZE_FLAG.test(flag))) return [];
  const mib = Math.floor(budgetBytes / MiB / workers / WORKER_HEAP_RATIO);
  return [`--max-old-space-size=${Math.min(WORKER_HEAP_MAX_MIB, Math.max(WORKER_HEAP_MIN_MIB, mib))}`];
}

/** The flags the operator gave node: its arguments, and NODE_OPTIONS. */
export function operatorNodeFlags(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): string[] {
  return [...execArgv, ...nodeOptions.split(/\s+/).filter((f) => f !== '')];
}

export interface HeapPolicy {
  /** V8's heap limit for this process, MiB. */
  limitMiB: number;
  /** The old space's growth between full collections, when this process fixed it; undefined: V8's own. */
  growingPercent?: number;
}

/**
 * Where V8 would let the old space grow 4× (see GENEROUS_GROWTH_FROM_BYTES), fixes its growth at `percent` (the
 * HEAP_GROWING_PERCENT setting; 0 leaves V8's own). V8 reads this flag at every full collection, so setting it
 * while running works as on node's command line, which keeps `npm start` a plain `node dist/src/start.js` and one
 * process. Below that limit V8's own growth (at most 1.3–2×) is kept.
 */
export function applyHeapPolicy(percent: number): HeapPolicy {
  const limitBytes = getHeapStatistics().heap_size_limit;
  const flag = heapGrowthFlag(percent, limitBytes);
  if (flag) setFlagsFromString(flag);
  return { limitMiB: Math.round(limitBytes / MiB), ...(flag ? { growingPercent: percent } : {}) };
}

/** The V8 flag applyHeapPolicy sets for a heap limit of `limitBytes`, if any. */
export function heapGrowthFlag(percent: number, limitBytes: number): string | undefined {
  return percent > 0 && limitBytes >= GENEROUS_GROWTH_FROM_BYTES ? `${GROWTH_FLAG}=${percent}` : undefined;
}

/**
 * The flag applyHeapPolicy set, as [V8's default, the policy's]: a V8 code cache made under other flags than the next
 * start's is refused, and the next start compiles before it sets the flag (src/process/compileCache.ts).
 */
export function heapFlagAround(policy: HeapPolicy): readonly [string, string] | undefined {
  return policy.growingPercent === undefined ? undefined : [`${GROWTH_FLAG}=0`, `${GROWTH_FLAG}=${policy.growingPercent}`];
}
