import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

/** Where the container's CPU quota is read from: cgroup v2, else cgroup v1 (the CFS quota and period). */
export interface CgroupPaths {
  cpuMax: string;
  cfsQuota: string;
  cfsPeriod: string;
}

const CGROUP: CgroupPaths = {
  cpuMax: '/sys/fs/cgroup/cpu.max',
  cfsQuota: '/sys/fs/cgroup/cpu/cpu.cfs_quota_us',
  cfsPeriod: '/sys/fs/cgroup/cpu/cpu.cfs_period_us',
};

/**
 * The cores this process may use: what the scheduler lets it run on (os.availableParallelism(), which honours the
 * CPU affinity mask), lowered to the container's CPU quota when one is set, rounded up (a quota of 1.5 CPUs keeps
 * two processes busy part of the time rather than one all of it). At least 1. `WORKERS=auto` resolves to this.
 */
export function availableCores(paths: CgroupPaths = CGROUP, parallelism: number = availableParallelism()): number {
  const quota = cpuQuota(paths);
  const cores = quota === undefined ? parallelism : Math.min(parallelism, Math.ceil(quota));
  return Math.max(1, cores);
}

/** The CPU quota in cores, or undefined when none is set (`max`, -1) or no cgroup file can be read. */
export function cpuQuota(paths: CgroupPaths = CGROUP): number | undefined {
  const v2 = readText(paths.cpuMax);
  if (v2 !== undefined) {
    // "<quota> <period>" in microseconds, or "max <period>" without a limit.
    const [quota, period] = v2.trim().split(/\s+/);
    return ratio(quota, period);
  }
  return ratio(readText(paths.cfsQuota)?.trim(), readText(paths.cfsPeriod)?.trim());
}

function ratio(quota: string | undefined, period: string | undefined): number | undefined {
  const q = Number(quota);
  const p = Number(period);
  if (!Number.isFinite(q) || !Number.isFinite(p) || q <= 0 || p <= 0) return undefined;
  return q / p;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}
