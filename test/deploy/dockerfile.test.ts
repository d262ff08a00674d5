import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** Instructions of a Dockerfile, continuation lines joined, comments dropped. */
function instructions(text: string): Array<{ op: string; args: string }> {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => {
      const [op, ...rest] = l.split(/\s+/);
      return { op: op.toUpperCase(), args: rest.join(' ') };
    });
}

/** No Docker engine runs where the tests run, so the image is not built here: these are its checkable properties. */
describe('Dockerfile', () => {
  const steps = instructions(read('Dockerfile'));
  const stages: Array<typeof steps> = [];
  for (const step of steps) {
    if (step.op === 'FROM') stages.push([]);
    stages[stages.length - 1]?.push(step);
  }
  const runtime = stages[stages.length - 1];
  const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };

  it('builds in one stage and runs from another, both on a supported Node LTS', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const stage of stages) expect(stage[0].args).toMatch(/^node:(22|24)[-.\w]*( AS \w+)?$/i);
  });

  it('installs with npm ci and builds with npm run build', () => {
    const build = stages[0].filter((s) => s.op === 'RUN').map((s) => s.args);
    expect(build.some((a) => /^npm ci\b/.test(a))).toBe(true);
    expect(build).toContain('npm run build');
  });

  it('ships production dependencies only, and the build output from the first stage', () => {
    const runs = runtime.filter((s) => s.op === 'RUN').map((s) => s.args);
    expect(runs.some((a) => /npm ci .*--omit=dev/.test(a))).toBe(true);
    expect(runtime.some((s) => s.op === 'COPY' && /--from=\w+ \/app\/dist/.test(s.args))).toBe(true);
    expect(runtime).toContainEqual({ op: 'ENV', args: 'NODE_ENV=production' });
  });

  it('runs as a non-root user', () => {
    const users = runtime.filter((s) => s.op === 'USER').map((s) => s.args);
    expect(users).toHaveLength(1);
    expect(users[0]).not.toMatch(/^(root|0)(:|$)/);
  });

  it('checks its health on /healthz', () => {
    const healthcheck = runtime.find((s) => s.op === 'HEALTHCHECK');
    expect(healthcheck?.args).toMatch(/CMD .*\/healthz/);
  });

  it("starts with exactly npm start's command: node, its two heap flags, and the build output of src/main.ts", () => {
    const cmd = runtime.filter((s) => s.op === 'CMD').at(-1)!;
    expect((JSON.parse(cmd.args) as string[]).join(' ')).toBe(pkg.scripts.start);
    const tsconfig = JSON.parse(read('tsconfig.json')) as { compilerOptions: { outDir: string; rootDir: string } };
    expect(tsconfig.compilerOptions.rootDir).toBe('.');
    expect(pkg.scripts.start).toBe(`node --heap-growing-percent=75 --no-memory-reducer ${tsconfig.compilerOptions.outDir}/src/main.js`);
  });

  it("gives node heap flags that node takes on its command line (NODE_OPTIONS refuses them)", () => {
    const [, ...flags] = pkg.scripts.start.split(' ');
    const run = spawnSync(process.execPath, [...flags.slice(0, -1), '-e', 'process.exit(0)'], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    for (const flag of flags.slice(0, -1)) {
      const refused = spawnSync(process.execPath, ['-e', 'process.exit(0)'], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: flag } });
      expect({ flag, refused: refused.status !== 0 && refused.stderr.includes('not allowed in NODE_OPTIONS') }).toEqual({ flag, refused: true });
    }
  });

  it('keeps local clutter and secrets out of the build context', () => {
    const ignored = read('.dockerignore').split('\n').map((l) => l.trim());
    for (const entry of ['node_modules', 'dist', '.git', '.env']) expect(ignored).toContain(entry);
  });
});

/** `npm start` and the image carry only the gateway: the simulated services are for `npm run dev` and the tests. */
describe('production build', () => {
  it('compiles no file of the sandbox', () => {
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const files = execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--listFilesOnly'], { cwd: ROOT, encoding: 'utf8' })
      .split('\n')
      .map((f) => f.trim())
      .filter((f) => f.startsWith(ROOT.replace(/\\/g, '/')) && !f.includes('/node_modules/'));
    expect(files.some((f) => f.endsWith('/src/main.ts'))).toBe(true);
    expect(files.filter((f) => f.includes('/src/sandbox/'))).toEqual([]);
  });

  it('leaves the sandbox out of the image build context', () => {
    expect(read('.dockerignore').split('\n').map((l) => l.trim())).toContain('src/sandbox');
  });
});
