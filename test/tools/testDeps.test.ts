import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const SCRIPT = resolve(__dirname, '../../tools/setup/testDeps.sh');
/** The Debian packages the tests use, besides chromium. */
const SERVERS = ['redis-server', 'redis-sentinel', 'haproxy', 'nginx', 'curl'];

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/**
 * A machine made of fakes: PATH holds only the commands written here (and the real `timeout`), so nothing is
 * installed or uninstalled for real. `apt-get` and `sudo` log their arguments to `calls`.
 */
function fakeMachine() {
  const dir = mkdtempSync(join(tmpdir(), 'tablegraph-testdeps-'));
  const bin = join(dir, 'bin');
  const calls = join(dir, 'calls');
  const chromium = join(dir, 'chromium');
  mkdirSync(bin);
  symlinkSync('/usr/bin/timeout', join(bin, 'timeout'));
  writeFileSync(calls, '');
  const command = (name: string, body: string) => {
    writeFileSync(join(bin, name), `#!/bin/sh\necho "${name} $*" >> '${calls}'\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  };
  return {
    bin,
    chromium,
    command,
    uid: (uid: number) => command('id', `echo ${uid}`),
    calls: () => readFileSync(calls, 'utf8').split('\n').filter((line) => line && !line.startsWith('id ')),
    run: () =>
      new Promise<Run>((done) => {
        const started = performance.now();
        execFile('/bin/bash', [SCRIPT], { env: { PATH: bin, CHROMIUM_PATH: chromium }, timeout: 20_000 }, (err, stdout, stderr) => {
          done({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr, ms: performance.now() - started });
        });
      }),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The one line the script stops with, checked to be the only output. */
function refusal(run: Run): string {
  expect(run.code).toBe(1);
  expect(run.stdout).toBe('');
  const lines = run.stderr.split('\n').filter(Boolean);
  expect(lines).toHaveLength(1);
  expect(run.ms).toBeLessThan(10_000);
  return lines[0];
}

describe('tools/setup/testDeps.sh', () => {
  let machine: ReturnType<typeof fakeMachine>;
  beforeEach(() => (machine = fakeMachine()));
  afterEach(() => machine.remove());

  it('does nothing when every server and chromium are there', async () => {
    machine.uid(1000);
    for (const tool of SERVERS) machine.command(tool, '');
    machine.command('apt-get', 'exit 0');
    writeFileSync(machine.chromium, '');
    chmodSync(machine.chromium, 0o755);
    const run = await machine.run();
    expect(run).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(machine.calls()).toEqual([]);
  });

  it('stops with the sudo command when it is not root and there is no sudo', async () => {
    machine.uid(1000);
    machine.command('apt-get', 'exit 0');
    const line = refusal(await machine.run());
    expect(line).toContain('not root');
    expect(line).toMatch(/run {2}sudo apt-get update && sudo apt-get install -y redis-server redis-sentinel haproxy nginx curl chromium$/);
    expect(machine.calls()).toEqual([]);
  });

  it('stops within 10 s when sudo hangs asking for a password', async () => {
    machine.uid(1000);
    machine.command('apt-get', 'exit 0');
    machine.command('sudo', 'exec /bin/sleep 60');
    const line = refusal(await machine.run());
    expect(line).toContain('sudo asks for a password');
    expect(machine.calls()).toEqual(['sudo -n true']);
  }, 20_000);

  it('stops naming apt-get when the machine has none', async () => {
    machine.uid(0);
    const line = refusal(await machine.run());
    expect(line).toContain('no apt-get here');
    expect(line).toMatch(/install -y redis-server redis-sentinel haproxy nginx curl chromium$/);
  });

  it('stops with the command to run (no sudo as root) when apt-get fails', async () => {
    machine.uid(0);
    machine.command('apt-get', 'exit 100');
    const line = refusal(await machine.run());
    expect(line).toContain('apt-get update failed');
    expect(line).toMatch(/run {2}apt-get update && apt-get install -y redis-server redis-sentinel haproxy nginx curl chromium$/);
  });

  it('installs only what is missing through password-less sudo, and checks it is there after', async () => {
    machine.uid(1000);
    machine.command('sudo', '[ "$1" = -n ] && shift; [ "$1" = true ] && exit 0; exec "$@"');
    for (const tool of SERVERS) machine.command(tool, '');
    // The fake install puts chromium where the tests look for it.
    machine.command('apt-get', `case "$*" in *install*) printf '' > '${machine.chromium}'; /bin/chmod +x '${machine.chromium}';; esac`);
    const run = await machine.run();
    expect(run.code).toBe(0);
    expect(existsSync(machine.chromium)).toBe(true);
    const calls = machine.calls().filter((line) => line.startsWith('apt-get'));
    expect(calls).toEqual([expect.stringMatching(/^apt-get .* update$/), expect.stringMatching(/^apt-get .* install -y chromium$/)]);
    expect(machine.calls()).toContain('sudo -n true');
  });

  it('stops when apt-get says it installed but the binary is still missing', async () => {
    machine.uid(0);
    machine.command('apt-get', 'exit 0');
    const line = refusal(await machine.run());
    expect(line).toContain('not at');
    expect(line).toMatch(/install -y redis-server redis-sentinel haproxy nginx curl chromium$/);
  });
});
