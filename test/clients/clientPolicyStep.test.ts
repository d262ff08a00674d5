import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SAMPLE } from '../../src/sandbox';
import { sha256Hex } from '../../src/sha256';
import { BISTRO_NORD, LA_TERRAZZA, startStack, type Stack } from '../support/stack';
import { MANIFEST_PATH, operation } from '../trustedDocuments/support';

const KEYS = { acme: 'acme-secret-key-1', slow: 'slow-secret-key-2', frugal: 'frugal-secret-key-3', thrifty: 'thrifty-secret-key-4', sharer: 'sharer-secret-key-5' };

/** A clients file in YAML, as an operator writes it. */
export function clientsYaml(options: { anonymous?: boolean } = {}): string {
  return `# test clients
defaults:
  partner: { requestsPerSecond: 50, burst: 100 }
clients:
  - name: acme
    audience: partner
    keySha256: ${sha256Hex(KEYS.acme)}
  - name: slow           # 1 request per second, 3 at once
    audience: partner
    keySha256: ${sha256Hex(KEYS.slow)}
    policy: { requestsPerSecond: 1, burst: 3 }
  - name: frugal         # cheap operations only
    audience: partner
    keySha256: ${sha256Hex(KEYS.frugal)}
    policy: { maxCost: 15, introspectionAllowed: false }
  - name: thrifty        # 3 upstream calls a minute
    audience: partner
    keySha256: ${sha256Hex(KEYS.thrifty)}
    policy: { upstreamCallsPerMinute: 3 }
  - name: sharer         # 2 upstream calls a minute, asked for by requests that all arrive at once
    audience: partner
    keySha256: ${sha256Hex(KEYS.sharer)}
    policy: { upstreamCallsPerMinute: 2 }
  - name: web
    audience: first-party
    policy: { requestsPerSecond: 1, burst: 2 }   # a 2 s window: three requests in a row always meet the limit
${options.anonymous ? 'anonymous: { requestsPerSecond: 5, burst: 5 }\n' : ''}`;
}

function writeClientsFile(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'tablegraph-clients-')), 'clients.yaml');
  writeFileSync(path, text);
  return path;
}

const CHECK_QUERY = `{ check(id: "${SAMPLE.laTerrazza.openCheckId}") { id } }`;
const partner = (name: keyof typeof KEYS, venue = LA_TERRAZZA) => ({ ...venue, 'x-api-key': KEYS[name] });

/** Reads one policy's parameters out of a RateLimit or RateLimit-Policy header. */
function item(header: string | null, name: string): Record<string, number> {
  const member = (header ?? '').split(',').map((m) => m.trim()).find((m) => m.startsWith(`"${name}";`));
  if (!member) throw new Error(`no "${name}" in ${header}`);
  return Object.fromEntries(member.split(';').slice(1).map((p) => [p.split('=')[0], Number(p.split('=')[1])]));
}

describe('clientPolicyStep', () => {
  describe('without a clients file', () => {
    let stack: Stack;
    beforeAll(async () => (stack = await startStack()));
    afterAll(() => stack.close());

    it('serves every caller as before, without rate-limit headers', async () => {
      const res = await stack.gql(CHECK_QUERY);
      expect(res.status).toBe(200);
      expect(res.body.errors).toBeUndefined();
      expect(res.headers.get('ratelimit')).toBeNull();
    });
  });

  describe('with a clients file', () => {
    let stack: Stack;
    beforeAll(async () => (stack = await startStack({ env: { CLIENTS_FILE: writeClientsFile(clientsYaml()), TRUSTED_DOCUMENTS: MANIFEST_PATH } })));
    afterAll(() => stack.close());
    beforeEach(() => stack.sandbox.resetRequests());

    it('refuses an unknown key with 401 UNAUTHENTICATED before any upstream call, and never logs the key', async () => {
      const res = await stack.gql(CHECK_QUERY, undefined, { ...LA_TERRAZZA, 'x-api-key': 'not-a-known-key' });
      expect(res.status).toBe(401);
      expect(res.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
      expect(stack.sandbox.requests).toHaveLength(0);
      expect(stack.logs.join('\n')).not.toContain('not-a-known-key');
    });

    it('refuses a caller that names no client with 401 when the file has no anonymous policy', async () => {
      const res = await stack.gql(CHECK_QUERY, undefined, { ...LA_TERRAZZA, 'apollographql-client-name': 'not-listed' });
      expect(res.status).toBe(401);
      expect(res.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    });

    it('serves a partner with RateLimit-Policy and RateLimit headers whose values count down', async () => {
      const first = await stack.gql(CHECK_QUERY, undefined, partner('acme'));
      const second = await stack.gql(CHECK_QUERY, undefined, partner('acme'));
      expect(first.status).toBe(200);
      expect(first.body.errors).toBeUndefined();
      expect(item(first.headers.get('ratelimit-policy'), 'requests')).toEqual({ q: 100, w: 2 });
      expect(item(first.headers.get('ratelimit-policy'), 'upstream-calls')).toEqual({ q: 300, w: 60 });
      expect(item(second.headers.get('ratelimit'), 'requests').r).toBe(item(first.headers.get('ratelimit'), 'requests').r - 1);
      // Each check query made one upstream call, charged after execution.
      expect(item(second.headers.get('ratelimit'), 'upstream-calls').r).toBe(item(first.headers.get('ratelimit'), 'upstream-calls').r - 1);
    });

    it('never forwards the key upstream', async () => {
      await stack.gql(CHECK_QUERY, undefined, partner('acme'));
      expect(stack.sandbox.requests.length).toBeGreaterThan(0);
      expect(JSON.stringify(stack.sandbox.requests.map((r) => r.headers))).not.toContain(KEYS.acme);
    });

    it('refuses a partner over its rate with 429 RATE_LIMITED, Retry-After and the headers', async () => {
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push(await stack.gql(CHECK_QUERY, undefined, partner('slow')));
      expect(answers.slice(0, 3).map((a) => a.status)).toEqual([200, 200, 200]);
      const refused = answers[3];
      expect(refused.status).toBe(429);
      expect(refused.body.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(item(refused.headers.get('ratelimit'), 'requests').r).toBe(0);
      expect(refused.headers.get('ratelimit-policy')).toContain('"requests";q=3;w=3');
    });

    it('refuses an operation over the partner\'s maximum cost with extensions.cost and no upstream call', async () => {
      const res = await stack.gql('{ reservations(date: "2026-01-01", perPage: 6) { nodes { id } } }', undefined, partner('frugal'));
      expect(res.status).toBe(400);
      expect(res.body.errors?.[0]?.extensions).toMatchObject({ code: 'COST_ESTIMATED_TOO_EXPENSIVE', cost: { estimated: 16, maximum: 15 } });
      expect(stack.sandbox.requests).toHaveLength(0);
      const cheap = await stack.gql(CHECK_QUERY, undefined, partner('frugal'));
      expect(cheap.body.errors).toBeUndefined();
    });

    it('refuses once the upstream-call budget is spent, counting the calls actually made', async () => {
      const query = `{ reservation(id: "${SAMPLE.laTerrazza.reservationWithCheckId}") { id check { id } } }`;
      const first = await stack.gql(query, undefined, partner('thrifty'));
      expect(first.status).toBe(200);
      expect(item(first.headers.get('ratelimit'), 'upstream-calls').r).toBe(1);
      expect((await stack.gql(query, undefined, partner('thrifty'))).status).toBe(200);
      stack.sandbox.resetRequests();
      const refused = await stack.gql(query, undefined, partner('thrifty'));
      expect(refused.status).toBe(429);
      expect(refused.body.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
      expect(item(refused.headers.get('ratelimit'), 'upstream-calls').r).toBe(0);
      expect(stack.sandbox.requests).toHaveLength(0);
    });

    it('reserves each request\'s estimated upstream calls before it runs: of concurrent requests, only those the budget holds run', async () => {
      // Each reads the whole budget on arrival; their reservations, one estimated call each, are taken one at a time.
      // Checks of distinct ids, so no two share a read (a shared read makes no call, and gives its reservation back).
      const answers = await Promise.all(Array.from({ length: 5 }, () => stack.gql(`{ check(id: "${randomUUID()}") { id } }`, undefined, partner('sharer'))));
      const served = answers.filter((a) => a.status === 200);
      const refused = answers.filter((a) => a.status === 429);
      expect([served.length, refused.length]).toEqual([2, 3]);
      expect(stack.sandbox.requests).toHaveLength(2);
      for (const res of refused) {
        expect(res.body.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(item(res.headers.get('ratelimit'), 'upstream-calls').r).toBe(0);
        expect(item(res.headers.get('ratelimit-policy'), 'upstream-calls')).toEqual({ q: 2, w: 60 });
      }
    });

    it('refuses introspection to a client whose policy does not allow it', async () => {
      const refused = await stack.gql('{ __schema { queryType { name } } }', undefined, partner('frugal'));
      expect(refused.body.errors?.[0]?.message).toMatch(/Introspection is not allowed/);
      const allowed = await stack.gql('{ __schema { queryType { name } } }', undefined, partner('acme'));
      expect(allowed.body).toEqual({ data: { __schema: { queryType: { name: 'Query' } } } });
    });

    it('refuses document text from a first-party app bound to trusted documents, and serves it a manifest id', async () => {
      const text = await stack.gql(CHECK_QUERY, undefined, { ...LA_TERRAZZA, 'apollographql-client-name': 'web' });
      expect(text.status).toBe(400);
      expect(text.body.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_NOT_IN_LIST');
      const byId = await fetch(`${stack.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...BISTRO_NORD, 'apollographql-client-name': 'web' },
        body: JSON.stringify({ extensions: { persistedQuery: { version: 1, sha256Hash: operation('Staff').id } } }),
      });
      const body = (await byId.json()) as { data?: { employees?: unknown }; errors?: unknown };
      expect({ status: byId.status, errors: body.errors }).toEqual({ status: 200, errors: undefined });
      expect(body.data?.employees).toBeTruthy();
      expect(byId.headers.get('ratelimit')).not.toBeNull();
    });

    it('refuses such an app a hash that names only an automatically persisted query, before any upstream call', async () => {
      // A partner registers the document by APQ; the first-party app then sends its hash alone.
      const registered = await fetch(`${stack.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...partner('acme') },
        body: JSON.stringify({ query: CHECK_QUERY, extensions: { persistedQuery: { version: 1, sha256Hash: sha256Hex(CHECK_QUERY) } } }),
      });
      expect(registered.status).toBe(200);
      stack.sandbox.resetRequests();
      const byHash = await fetch(`${stack.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...BISTRO_NORD, 'apollographql-client-name': 'web' },
        body: JSON.stringify({ extensions: { persistedQuery: { version: 1, sha256Hash: sha256Hex(CHECK_QUERY) } } }),
      });
      const body = (await byHash.json()) as { errors?: Array<{ extensions?: { code?: string } }> };
      expect({ status: byHash.status, code: body.errors?.[0]?.extensions?.code }).toEqual({ status: 400, code: 'PERSISTED_QUERY_NOT_IN_LIST' });
      expect(stack.sandbox.requests).toHaveLength(0);
    });

    it('keeps a first-party app\'s budget per venue, so one venue never spends another\'s', async () => {
      const web = (venue: Record<string, string>) =>
        fetch(`${stack.url}/graphql?query=${encodeURIComponent('{__typename}')}`, { headers: { ...venue, 'apollographql-client-name': 'web', 'apollo-require-preflight': 'true' } });
      // "web" allows 2 requests per 2 s window; La Terrazza spends its own.
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await web(LA_TERRAZZA)).status);
      expect(statuses.slice(-1)).toEqual([429]);
      expect((await web({ ...BISTRO_NORD, 'Pos-Access-Token': 'another-venue-token' })).status).not.toBe(429);
    });

    it('logs and counts per client name, never the key', async () => {
      await stack.gql(CHECK_QUERY, undefined, partner('acme'));
      const line = stack.logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.client === 'acme').pop();
      expect(line).toMatchObject({ msg: 'graphql request', client: 'acme', clientAudience: 'partner', estimatedCost: '10', actualUpstreamCalls: '1' });
      const metrics = (await stack.gateway.metrics.render()).text;
      expect(metrics).toMatch(/tablegraph_client_requests_total\{client="acme",decision="allowed"\} \d+/);
      expect(metrics).toMatch(/tablegraph_client_requests_total\{client="frugal",decision="cost"\} 1/);
      expect(metrics).toMatch(/tablegraph_client_upstream_calls_total\{client="acme"\} \d+/);
      expect(metrics).toMatch(/tablegraph_client_actual_cost_sum\{client="acme"\} [1-9]\d*/);
      expect(stack.logs.join('\n') + metrics).not.toContain(KEYS.acme);
    });
  });

  describe('with an anonymous policy', () => {
    let stack: Stack;
    beforeAll(async () => (stack = await startStack({ env: { CLIENTS_FILE: writeClientsFile(clientsYaml({ anonymous: true })) } })));
    afterAll(() => stack.close());

    it('serves a caller that names no client under the anonymous policy', async () => {
      const res = await stack.gql(CHECK_QUERY);
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-policy')).toContain('"requests";q=5;w=1');
    });

    it('still refuses an unknown key', async () => {
      const res = await stack.gql(CHECK_QUERY, undefined, { ...LA_TERRAZZA, 'x-api-key': 'nope' });
      expect(res.status).toBe(401);
    });
  });
});
