import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { Kind, parse } from 'graphql';
import { DAY_QUERY } from '../src/http/explorer';
import { SANDBOX_CREDENTIALS } from '../src/sandbox';
import { eventually, ROOT, spawnGateway, type GatewayProcess } from './support/gatewayProcess';
import { freePort } from './support/net';
import { fencedBlocks, readDoc, README, type FencedBlock } from './support/readme';

const VENUES: Record<string, Record<string, string>> = { 'La Terrazza': SANDBOX_CREDENTIALS.laTerrazza, 'Bistro Nord': SANDBOX_CREDENTIALS.bistroNord };
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** The files whose examples must run against `npm run dev`: a few in the README, the rest for the front-end teams. */
const EXAMPLE_DOCS = ['README.md', 'docs/clients.md'];

/** A fenced block and the file it is in. */
interface DocBlock extends FencedBlock {
  doc: string;
}

const blocks: DocBlock[] = EXAMPLE_DOCS.flatMap((doc) => fencedBlocks(readDoc(doc)).map((b) => ({ ...b, doc })));

/** A credential header's name as the gateway takes it in either spelling (`Employee-Token`, `EMPLOYEE_TOKEN`). */
function byHeaderName(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase().replace(/-/g, '_'), value]));
}

/** A GraphQL example: the document, and what its `# variables:`, `# headers:` and `# answers:` lines say. */
interface GraphqlExample {
  name: string;
  document: string;
  variablesText: string | undefined;
  venue: string;
  answers: string | undefined;
}

function graphqlExample(block: DocBlock): GraphqlExample {
  const lines = block.text.split('\n');
  const directive = (name: string) => lines.find((l) => l.startsWith(`# ${name}:`))?.slice(name.length + 3).trim();
  const start = lines.findIndex((l) => l.startsWith('# variables:'));
  let variablesText: string | undefined;
  if (start >= 0) {
    // A long variables object continues on the following comment lines.
    const rest = lines.slice(start + 1).filter((l) => l.startsWith('#') && !/^# \w+:/.test(l));
    variablesText = [lines[start].slice('# variables:'.length), ...rest.map((l) => l.slice(1))].join(' ');
  }
  return {
    name: `${block.doc} line ${block.line}`,
    document: lines.filter((l) => !l.startsWith('#')).join('\n'),
    variablesText,
    venue: directive('headers') ?? 'La Terrazza',
    answers: directive('answers'),
  };
}

const graphqlExamples = blocks.filter((b) => b.lang === 'graphql').map(graphqlExample);
const curlExamples = blocks.filter((b) => b.lang === 'sh' && /^curl /m.test(b.text));

function run(command: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('bash', ['-c', command], { timeout: 15_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

/** The examples of the README and docs/clients.md, run as written against `npm run dev` (only the port differs, and BUSY_DATE is the banner's). */
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
    busyDate = /BUSY_DATE\s+(\d{4}-\d{2}-\d{2})/.exec(banner)?.[1] ?? '';
  }, 30_000);
  afterAll(() => dev?.kill());

  it('has GraphQL and curl examples to run', () => {
    expect(graphqlExamples.length).toBeGreaterThanOrEqual(5);
    expect(curlExamples.length).toBeGreaterThanOrEqual(2);
    expect(busyDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('shows both venues\' headers as the sandbox takes them', () => {
    const shown = blocks.filter((b) => b.lang === 'json' && b.text.includes('Pos-Access-Token')).map((b) => byHeaderName(JSON.parse(b.text) as Record<string, string>));
    expect(shown).toEqual([byHeaderName(SANDBOX_CREDENTIALS.laTerrazza), byHeaderName(SANDBOX_CREDENTIALS.bistroNord)]);
  });

  it('starts with the day query the explorer pre-fills', () => {
    expect(graphqlExamples[0].document.trim()).toBe(DAY_QUERY.trim());
    expect(graphqlExamples[0].variablesText).toContain('$BUSY_DATE');
  });

  it('names only ids that npm run dev prints', () => {
    const printed = new Set(banner.match(UUID));
    const named = [...new Set(blocks.flatMap((b) => b.text.match(UUID) ?? []))];
    // When the sample changes, take the new ids from the banner:
    expect({ notPrinted: named.filter((id) => !printed.has(id)), banner }).toEqual({ notPrinted: [], banner });
  });

  it.each(graphqlExamples.map((e) => [e.name, e] as const))('runs the GraphQL example at %s', async (_name, example) => {
    const operations = parse(example.document).definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
    expect(operations).toHaveLength(1);
    const variables = example.variablesText === undefined ? undefined : (JSON.parse(example.variablesText.replace(/\$BUSY_DATE/g, busyDate)) as unknown);
    const res = await fetch(`http://127.0.0.1:${port}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...VENUES[example.venue] },
      body: JSON.stringify({ query: example.document, variables }),
    });
    const body = (await res.json()) as { data?: Record<string, unknown> | null; errors?: Array<{ extensions?: { code?: string } }> };
    if (example.answers) {
      expect(body.errors?.map((e) => e.extensions?.code)).toEqual([example.answers]);
    } else {
      expect({ status: res.status, errors: body.errors }).toEqual({ status: 200, errors: undefined });
      expect(Object.values(body.data ?? {}).every((value) => value !== null)).toBe(true);
    }
  });

  it.each(curlExamples.map((b) => [`${b.doc} line ${b.line}`, b] as const))('runs the curl example at %s', async (_name, block) => {
    const result = await run(block.text.replace(/localhost:4000/g, `localhost:${port}`));
    expect({ code: result.code, stderr: result.code === 0 ? '' : result.stderr }).toEqual({ code: 0, stderr: '' });
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
