import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { parse, print } from 'graphql';
import { DAY_QUERY } from '../src/http/explorer';
import { SANDBOX_CREDENTIALS } from '../src/sandbox';
import { eventually, ROOT, spawnGateway, type GatewayProcess } from './support/gatewayProcess';
import { freePort } from './support/net';
import { curlRequests, fencedBlocks, readDoc, README, type FencedBlock } from './support/readme';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** The files whose examples must run against `npm run dev`: a few in the README, the rest for the front-end teams. */
const EXAMPLE_DOCS = ['README.md', 'docs/clients.md'];

/** A fenced block and the file it is in. */
interface DocBlock extends FencedBlock {
  doc: string;
}

const blocks: DocBlock[] = EXAMPLE_DOCS.flatMap((doc) => fencedBlocks(readDoc(doc)).map((b) => ({ ...b, doc })));
const curlExamples = blocks.filter((b) => b.lang === 'sh' && /\bcurl\b/.test(b.text));
const name = (b: DocBlock) => `${b.doc} line ${b.line}`;
/** What the example says its output holds (`# answers: …` lines); without any, a GraphQL answer with every root field. */
const answersOf = (b: DocBlock) => [...b.text.matchAll(/^# answers: (.+)$/gm)].map((m) => m[1].trim());

/** A credential header's name as the gateway takes it in either spelling (`Employee-Token`, `EMPLOYEE_TOKEN`). */
function byHeaderName(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([n, value]) => [n.toLowerCase().replace(/-/g, '_'), value]));
}

const CREDENTIAL_NAMES = new Set(Object.keys(byHeaderName(SANDBOX_CREDENTIALS.laTerrazza)));

/** The sample venue whose credentials a request carries, when every credential header it sends is that venue's. */
function venueOf(headers: Record<string, string>): string | undefined {
  const sent = Object.entries(byHeaderName(headers)).filter(([n]) => CREDENTIAL_NAMES.has(n));
  const venues = Object.entries(SANDBOX_CREDENTIALS).filter(([, credentials]) => sent.every(([n, v]) => byHeaderName(credentials)[n] === v));
  return sent.length > 0 && venues.length === 1 ? venues[0][0] : undefined;
}

/** Runs a snippet with bash, as a reader's terminal would, with the environment it says to set (BUSY_DATE). */
function run(command: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('bash', ['-c', command], { timeout: 15_000, env: { PATH: process.env.PATH ?? '', ...env } }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

/** The examples of the README and docs/clients.md, run as written with curl against `npm run dev` (only the port differs). */
describe('README and docs/clients.md, Example operations', () => {
  let dev: GatewayProcess;
  let port: number;
  let banner: string;
  let busyDate: string;

  beforeAll(async () => {
    port = await freePort();
    dev = spawnGateway(join('src', 'sandbox', 'dev.ts'), { PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' });
    if (!(await eventually(() => dev.stdout().includes('Try:'), 20_000))) throw new Error(`npm run dev printed no banner:\n${dev.stdout()}\n${dev.stderr()}`);
    banner = dev.stdout();
    busyDate = /export BUSY_DATE=(\d{4}-\d{2}-\d{2})/.exec(banner)?.[1] ?? '';
  }, 30_000);
  afterAll(() => dev?.kill());

  it('has curl examples to run, on a machine with curl', async () => {
    expect(curlExamples.length).toBeGreaterThanOrEqual(12);
    expect(busyDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect((await run('curl --version', {})).code).toBe(0);
  });

  it('sets BUSY_DATE with the line npm run dev prints', () => {
    const setting = blocks.find((b) => b.lang === 'sh' && /^export BUSY_DATE=/m.test(b.text));
    expect(setting?.text).toMatch(/^export BUSY_DATE=\d{4}-\d{2}-\d{2}\s/);
    expect(banner).toContain(`export BUSY_DATE=${busyDate}`);
  });

  it('shows both venues\' headers as the sandbox takes them', () => {
    const shown = blocks.filter((b) => b.lang === 'json' && b.text.includes('Pos-Access-Token')).map((b) => byHeaderName(JSON.parse(b.text) as Record<string, string>));
    expect(shown).toEqual([byHeaderName(SANDBOX_CREDENTIALS.laTerrazza), byHeaderName(SANDBOX_CREDENTIALS.bistroNord)]);
  });

  it('spells out one sample venue\'s headers in every request it sends', () => {
    const requests = curlExamples.flatMap((b) => {
      try {
        return curlRequests(b.text, { BUSY_DATE: busyDate }).map((r) => ({ example: name(b), venue: venueOf(r.headers) }));
      } catch {
        return []; // a command with `$(…)` is only run, never read
      }
    });
    expect(requests.length).toBeGreaterThanOrEqual(curlExamples.length - 2);
    expect(requests.filter((r) => r.venue === undefined)).toEqual([]);
  });

  it('starts docs/clients.md with the day query the explorer pre-fills, for BUSY_DATE', () => {
    const [first] = curlRequests(curlExamples.find((b) => b.doc === 'docs/clients.md')!.text, { BUSY_DATE: busyDate });
    const body = JSON.parse(first.body!) as { query: string; variables: { date: string } };
    expect(print(parse(body.query))).toBe(print(parse(DAY_QUERY)));
    expect(body.variables).toEqual({ date: busyDate });
  });

  it('names only ids that npm run dev prints', () => {
    const printed = new Set(banner.match(UUID));
    const named = [...new Set(blocks.flatMap((b) => b.text.match(UUID) ?? []))];
    // When the sample changes, take the new ids from the banner:
    expect({ notPrinted: named.filter((id) => !printed.has(id)), banner }).toEqual({ notPrinted: [], banner });
  });

  it.each(curlExamples.map((b) => [name(b), b] as const))('runs the curl example at %s', async (_name, block) => {
    const result = await run(block.text.replace(/localhost:4000/g, `localhost:${port}`), { BUSY_DATE: busyDate });
    expect({ code: result.code, stderr: result.code === 0 ? '' : result.stderr }).toEqual({ code: 0, stderr: '' });
    const answers = answersOf(block);
    if (answers.length > 0) {
      for (const answer of answers) expect({ answer, stdout: result.stdout.includes(answer) ? 'contains it' : result.stdout }).toEqual({ answer, stdout: 'contains it' });
      return;
    }
    const body = JSON.parse(result.stdout) as { data?: Record<string, unknown>; errors?: unknown };
    expect(body.errors).toBeUndefined();
    expect(Object.values(body.data ?? {}).length).toBeGreaterThan(0);
    expect(Object.values(body.data ?? {}).every((value) => value !== null)).toBe(true);
  });
});

/** Every Markdown file a reader is sent to: the README, the changelog and docs/. */
const DOCS = ['README.md', 'CHANGELOG.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

describe('README and docs, links', () => {
  it('points at nothing outside the repository', () => {
    for (const doc of DOCS) {
      const text = readDoc(doc);
      const outside = (text.match(/(?:\.\.\/)+[A-Za-z][^\s)`'"]*/g) ?? []).filter((path) => relative(ROOT, resolve(ROOT, dirname(doc), path)).startsWith('..'));
      expect({ doc, outside: [...(text.match(/\.\.\/shared/g) ?? []), ...outside] }).toEqual({ doc, outside: [] });
      for (const [, target] of text.matchAll(/\]\(([^)#\s]+)[^)]*\)/g)) {
        if (/^https?:/.test(target)) continue;
        expect({ doc, target, exists: existsSync(join(ROOT, doc, '..', target)) }).toEqual({ doc, target, exists: true });
      }
    }
  });

  it('links the API reference in the repository', () => {
    expect(README).toContain('[docs/api.md](docs/api.md)');
    expect(existsSync(join(ROOT, 'docs', 'api.md'))).toBe(true);
  });
});
