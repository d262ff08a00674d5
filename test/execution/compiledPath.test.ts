import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SAMPLE } from '../../src/sandbox';
import { sha256Hex } from '../../src/sha256';
import { LA_TERRAZZA, logLine, startStack, type Stack } from '../support/stack';
import { MANIFEST_PATH, byPersistedQuery, operation } from '../trustedDocuments/support';

/**
 * The compiled path (src/execution/compiledPath.ts) answers exactly as Apollo does: the same requests go to a gateway
 * with COMPILED_PATH on and to one with it off, and every status, content type, body and log line must agree; only
 * the log line's `execution: compiled` tells which path served it.
 */
const FRUGAL_KEY = 'frugal-compiled-path-key';
/** Writes the clients file of both gateways into `dir`; gives its path. */
const clientsFile = (dir: string): string => {
  const path = join(dir, 'clients.yaml');
  writeFileSync(
    path,
    `clients:
  - name: frugal
    audience: partner
    keySha256: ${sha256Hex(FRUGAL_KEY)}
    policy: { maxCost: 15 }
  - name: web
    audience: first-party
    policy: { requestsPerSecond: 1000, burst: 1000, trustedDocumentsOnly: false }
anonymous: { requestsPerSecond: 1000, burst: 1000 }
`,
  );
  return path;
};

interface Exchange {
  status: number;
  contentType: string | null;
  rateLimitPolicy: string | null;
  body: unknown;
  /** The body as sent: the compiled serialiser must write Apollo's bytes, not only an equal value. */
  text: string;
  log: Record<string, unknown>;
}

describe('the compiled path', () => {
  let compiled: Stack;
  let apollo: Stack;
  let sent = 0;
  /** The temporary directory of the clients file, removed after the tests. */
  let dir: string | undefined;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tablegraph-compiled-'));
    const env = { TRUSTED_DOCUMENTS: MANIFEST_PATH, CLIENTS_FILE: clientsFile(dir), MAX_UPSTREAM_CALLS: '40' };
    // One "now" for both sandboxes: their records' timestamps are made from it, and the bodies are compared whole.
    const sandbox = { now: new Date() };
    [compiled, apollo] = await Promise.all([startStack({ sandbox, env }), startStack({ sandbox, env: { ...env, COMPILED_PATH: 'false' } })]);
  });
  afterAll(async () => {
    try {
      await Promise.all([compiled.close(), apollo.close()]);
    } finally {
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    }
  });

  /** Sends the same request to both gateways; gives both answers, the log lines without their timings. */
  async function both(body: unknown, headers: Record<string, string> = {}): Promise<[Exchange, Exchange]> {
    const requestId = `compiled-path-${++sent}`;
    const exchange = async (stack: Stack): Promise<Exchange> => {
      const res = await fetch(`${stack.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'apollographql-client-name': 'web', ...LA_TERRAZZA, 'x-request-id': requestId, ...headers },
        body: JSON.stringify(body),
      });
      const text = await res.text();
      const { time: _t, durationMs: _d, pid: _p, hostname: _h, upstreamCalls, ...log } = logLine(stack, requestId);
      const calls = (upstreamCalls as Array<Record<string, unknown>> | undefined)?.map(({ durationMs: _cd, ...call }) => call);
      return { status: res.status, contentType: res.headers.get('content-type'), rateLimitPolicy: res.headers.get('ratelimit-policy'), body: JSON.parse(text) as unknown, text, log: { ...log, upstreamCalls: calls } };
    };
    return [await exchange(compiled), await exchange(apollo)];
  }

  it('serves a trusted document without Apollo, answering as Apollo does', async () => {
    const [fast, slow] = await both(byPersistedQuery(operation('CheckDetail').id, { id: SAMPLE.laTerrazza.openCheckId }));
    expect(fast.log.execution).toBe('compiled');
    expect(slow.log.execution).toBeUndefined();
    expect({ ...fast, log: { ...fast.log, execution: undefined } }).toEqual(slow);
    expect(fast.status).toBe(200);
    expect(fast.contentType).toBe('application/json; charset=utf-8');
    expect(fast.log).toMatchObject({ operationName: 'CheckDetail', outcome: 'success', document: 'trusted', client: 'web', estimatedUpstreamCalls: '1', actualUpstreamCalls: '1' });
  });

  it('reads null variables, a null operation name and empty extensions as Apollo does', async () => {
    const [fast, slow] = await both({ documentId: operation('Staff').id, variables: null, operationName: null, extensions: {} });
    const [named] = await both({ ...byPersistedQuery(operation('Staff').id), operationName: 'Staff' });
    expect([fast.log.execution, named.log.execution]).toEqual(['compiled', 'compiled']);
    expect({ ...fast, log: { ...fast.log, execution: undefined } }).toEqual(slow);
  });

  it('formats execution errors as Apollo does (a check that does not exist)', async () => {
    const [fast, slow] = await both(byPersistedQuery(operation('CheckDetail').id, { id: '00000000-0000-4000-8000-000000000000' }));
    expect(fast.log.execution).toBe('compiled');
    expect({ ...fast, log: { ...fast.log, execution: undefined } }).toEqual(slow);
    expect(fast.body).toMatchObject({ data: { check: null }, errors: [{ path: ['check'], extensions: { code: 'NOT_FOUND' } }] });
  });

  it('negotiates the content type as Apollo does', async () => {
    for (const accept of ['application/graphql-response+json', 'application/graphql-response+json, application/json;q=0.9', '*/*', 'application/json']) {
      const [fast, slow] = await both(byPersistedQuery(operation('Staff').id), { accept });
      expect(fast.status).toBe(200);
      expect(fast.log.execution).toBe('compiled');
      expect(fast.contentType).toBe(slow.contentType);
      expect(fast.body).toEqual(slow.body);
    }
  });

  it('serves a text after Apollo has validated and compiled it, and not before', async () => {
    const query = `query Few { employees(perPage: 3) { nodes { firstName } } }`;
    const paths: unknown[] = [];
    for (let i = 0; i < 5; i++) {
      const [fast, slow] = await both({ query });
      expect(fast.status).toBe(200);
      expect(fast.body).toEqual(slow.body);
      paths.push(fast.log.execution ?? 'apollo');
    }
    // JIT_MIN_USES is 3: the third run compiles it, the fourth skips Apollo.
    expect(paths).toEqual(['apollo', 'apollo', 'apollo', 'compiled', 'compiled']);
  });

  it.each([
    ['a variable of the wrong type', byPersistedQuery(operation('StaffList').id, { perPage: 'many' }), {}],
    ['a missing required variable', byPersistedQuery(operation('CheckDetail').id, {}), {}],
    ['another operation name', { ...byPersistedQuery(operation('Staff').id), operationName: 'Other' }, {}],
    ['more upstream calls than MAX_UPSTREAM_CALLS', byPersistedQuery(operation('DayView').id, { date: '2026-01-01', perPage: 50 }), {}],
    ['a cost over the client maximum', byPersistedQuery(operation('CheckDetail').id, { id: SAMPLE.laTerrazza.openCheckId }), { 'x-api-key': FRUGAL_KEY }],
  ])('leaves %s to Apollo, which refuses it as before', async (_what, body, headers) => {
    compiled.sandbox.resetRequests();
    const [fast, slow] = await both(body, headers);
    expect(fast.log.execution).toBeUndefined();
    expect(fast).toEqual(slow);
    expect(fast.status).toBeGreaterThanOrEqual(400);
    expect(compiled.sandbox.requests).toHaveLength(0);
  });

  it('counts every operation in the same metrics, with the same outcome and client figures', async () => {
    // Traffic of its own, so the test stands alone: an operation the compiled path serves, and one Apollo refuses.
    const [served] = await both(byPersistedQuery(operation('Staff').id));
    const [refused] = await both(byPersistedQuery(operation('StaffList').id, { perPage: 'many' }));
    expect([served.status, served.log.execution]).toEqual([200, 'compiled']);
    expect(refused.status).toBeGreaterThanOrEqual(400);
    const counted = async (stack: Stack) =>
      (await (await fetch(`${stack.url}/metrics`)).text())
        .split('\n')
        .filter((l) => /^tablegraph_(graphql_requests_total|client_(requests_total|upstream_calls_total|estimated_cost_count|actual_cost_sum|actual_cost_count))\{/.test(l))
        .sort();
    const [fast, slow] = [await counted(compiled), await counted(apollo)];
    expect(fast.length).toBeGreaterThan(3);
    expect(fast).toEqual(slow);
  });

  it('leaves an accept header without a JSON type to Apollo, which answers 406 as before', async () => {
    // Apollo executes the operation before it reads the accept header, so the upstream call is made on both paths.
    const [fast, slow] = await both(byPersistedQuery(operation('Staff').id), { accept: 'text/html' });
    expect(fast.log.execution).toBeUndefined();
    expect(fast).toEqual(slow);
    expect(fast.status).toBe(406);
  });
});
