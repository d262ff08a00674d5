import { readmeSection, tableRows } from './support/readme';
import { LA_TERRAZZA, startStack, type Stack } from './support/stack';

const OPERATIONS = 'docs/operations.md';

/** The operators' doc against a running gateway: what it promises is what the code does. */
describe('docs/operations.md', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack.close());

  it('lists endpoints that the gateway answers', async () => {
    const paths = tableRows(readmeSection('Endpoints', OPERATIONS)).flatMap(([cell]) => [...cell.matchAll(/`GET (\/\w+)`/g)].map((m) => m[1]));
    expect([...new Set(paths)].sort()).toEqual(['/graphql', '/healthz', '/metrics', '/readyz']);
    for (const path of ['/healthz', '/readyz', '/metrics']) expect({ path, status: (await fetch(`${stack.url}${path}`)).status }).toEqual({ path, status: 200 });
  });

  it('shows a request log line with the fields the gateway writes', async () => {
    const example = readmeSection('Logs', OPERATIONS).find((l) => l.includes('"msg":"graphql request"'));
    const documented = JSON.parse(example!) as Record<string, unknown>;
    await stack.gql(`query Staff { employees(perPage: 1) { nodes { id } } }`, undefined, { ...LA_TERRAZZA, 'x-request-id': 'readme-1' });
    const real = stack.logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.requestId === 'readme-1')!;
    // traceId and spanId appear only when tracing is on, which it is not here.
    expect(Object.keys(real).sort()).toEqual(Object.keys(documented).filter((k) => k !== 'traceId' && k !== 'spanId').sort());
    const [documentedCall] = documented.upstreamCalls as Array<Record<string, unknown>>;
    const [realCall] = real.upstreamCalls as Array<Record<string, unknown>>;
    expect(Object.keys(realCall).sort()).toEqual(Object.keys(documentedCall).sort());
  });
});
