import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { availableCores, cpuQuota, type CgroupPaths } from '../../src/process/cores';

/** Real files in a scratch directory standing in for /sys/fs/cgroup. */
describe('availableCores', () => {
  let dir: string;
  let paths: CgroupPaths;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cgroup-'));
    paths = { cpuMax: join(dir, 'cpu.max'), cfsQuota: join(dir, 'cpu.cfs_quota_us'), cfsPeriod: join(dir, 'cpu.cfs_period_us') };
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('takes the cores the scheduler allows when no cgroup file is there', () => {
    expect(cpuQuota(paths)).toBeUndefined();
    expect(availableCores(paths, 6)).toBe(6);
  });

  it('lowers them to a cgroup v2 quota, rounded up', () => {
    writeFileSync(paths.cpuMax, '150000 100000\n');
    expect(cpuQuota(paths)).toBe(1.5);
    expect(availableCores(paths, 8)).toBe(2);
  });

  it('ignores a cgroup v2 file without a limit', () => {
    writeFileSync(paths.cpuMax, 'max 100000\n');
    expect(availableCores(paths, 4)).toBe(4);
  });

  it('reads the cgroup v1 CFS quota when there is no v2 file, and -1 as no limit', () => {
    writeFileSync(paths.cfsQuota, '50000\n');
    writeFileSync(paths.cfsPeriod, '100000\n');
    expect(availableCores(paths, 4)).toBe(1);
    writeFileSync(paths.cfsQuota, '-1\n');
    expect(availableCores(paths, 4)).toBe(4);
  });

  it('never answers more than the scheduler allows, nor less than 1', () => {
    writeFileSync(paths.cpuMax, '800000 100000\n');
    expect(availableCores(paths, 2)).toBe(2);
    writeFileSync(paths.cpuMax, '1000 100000\n');
    expect(availableCores(paths, 2)).toBe(1);
  });
});
