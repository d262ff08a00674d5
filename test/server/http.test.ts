import { request } from 'node:http';
import { SAMPLE } from '../../src/sandbox';
import { BISTRO_NORD, LA_TERRAZZA, logLine, startStack, type Stack } from '../support/stack';
import { leakedSecrets } from '../support/leaks';

describe('the HTTP layer', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack.close());
  beforeEach(() => stack.sandbox.resetRequests());

  it('answers /healthz and /readyz with 200 while serving', async () => {
    expect((await fetch(`${stack.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${stack.url}/readyz`)).status).toBe(200);
  });

  it('answers 404 for unknown paths', async () => {
    expect((await fetch(`${stack.url}/nope`)).status).toBe(404);
  });

  it('serves queries over GET', async () => {
    const query = encodeURIComponent(`{ check(id: "${SAMPLE.laTerrazza.openCheckId}") { id status } }`);
    const res = await fetch(`${stack.url}/graphql?query=${query}`, { headers: { ...LA_TERRAZZA, 'apollo-require-preflight': 'true' } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: { check: { id: SAMPLE.laTerrazza.openCheckId, status: 'open' } } });
  });

  it('refuses mutations over GET without calling an upstream', async () => {
    const query = encodeURIComponent(`mutation { createOffDay(input: { revenueCenterId: "${SAMPLE.laTerrazza.revenueCenterIds[0]}", date: "2099-12-31T00:00" }) { offDay { date } } }`);
    const res = await fetch(`${stack.url}/graphql?query=${query}`, { headers: { ...LA_TERRAZZA, 'apollo-require-preflight': 'true' } });
    expect(res.status).toBe(405);
    expect(stack.sandbox.requests).toHaveLength(0);
  });

  it('refuses a simple cross-site GET (CSRF prevention)', async () => {
    const res = await fetch(`${stack.url}/graphql?query=${encodeURIComponent('{ __typename }')}`);
    expect(res.status).toBe(400);
  });

  it('serves the Apollo Sandbox landing page to a browser outside production', async () => {
    const res = await fetch(`${stack.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('embeddable-sandbox');
  });

  it('refuses a body over the limit with 413 and no upstream call', async () => {
    const small = await startStack({ env: { MAX_BODY_BYTES: '2048' } });
    try {
      const res = await fetch(`${small.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...LA_TERRAZZA },
        body: JSON.stringify({ query: `{ employees { nodes { id } } }`, variables: { pad: 'x'.repeat(4096) } }),
      });
      expect(res.status).toBe(413);
      expect(small.sandbox.requests).toHaveLength(0);
    } finally {
      await small.close();
    }
  });

  it('refuses a chunked body (no Content-Length) with 413 once it passes the limit, before any upstream call', async () => {
    const small = await startStack({ env: { MAX_BODY_BYTES: '2048' } });
    try {
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(`${small.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...LA_TERRAZZA } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        // Written in pieces without a length: Node's client sends it chunked, so the limit is met while reading.
        const body = JSON.stringify({ query: `{ employees { nodes { id } } }`, variables: { pad: 'x'.repeat(4096) } });
        req.write(body.slice(0, 1000));
        setTimeout(() => req.end(body.slice(1000)), 20);
      });
      expect(status).toBe(413);
      expect(small.sandbox.requests).toHaveLength(0);
    } finally {
      await small.close();
    }
  });

  it('answers 400 with a clear message for a body that is not JSON', async () => {
    const res = await fetch(`${stack.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query": ' });
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toContain('not valid JSON');
  });

  describe('request id', () => {
    it('keeps a well-formed client request id, returns it and forwards it upstream', async () => {
      const res = await stack.gql(`{ employees(perPage: 1) { nodes { id } } }`, undefined, { ...LA_TERRAZZA, 'x-request-id': 'req-abc.123' });
      expect(res.headers.get('x-request-id')).toBe('req-abc.123');
      expect(stack.sandbox.requests[0].headers['x-request-id']).toBe('req-abc.123');
    });

    it('replaces a malformed one with a generated id', async () => {
      const res = await stack.gql(`{ employees(perPage: 1) { nodes { id } } }`, undefined, { ...LA_TERRAZZA, 'x-request-id': 'bad id\twith tab' });
      const id = res.headers.get('x-request-id');
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(stack.sandbox.requests[0].headers['x-request-id']).toBe(id);
    });
  });

  describe('credentials', () => {
    const everything = {
      ...LA_TERRAZZA,
      cookie: 'session=s3cr3t',
      'user-agent': 'partner-app/1.0',
      'x-forwarded-for': '203.0.113.9',
      'x-api-key': 'other-secret',
    };
    // Under both spellings: the hyphenated ones go to no service as they came.
    const reservationHeaders = ['reservation-access-token', 'authorization', 'employee_token', 'store_pin_code', 'slug_name', 'employee-token', 'store-pin-code', 'slug-name'];

    it('forwards each credential only to its own service and no other client header', async () => {
      const res = await stack.gql(
        `query($id: ID!) { reservation(id: $id) { id check { id } } employees(perPage: 1) { nodes { id } } }`,
        { id: SAMPLE.laTerrazza.reservationWithCheckId },
        everything,
      );
      expect(res.body.errors).toBeUndefined();
      const byService = (s: string) => stack.sandbox.requests.filter((r) => r.service === s);
      expect(byService('pos')).toHaveLength(2);
      for (const r of byService('pos')) {
        expect(r.headers['pos-access-token']).toBe(LA_TERRAZZA['Pos-Access-Token']);
        for (const h of reservationHeaders) expect(r.headers[h]).toBeUndefined();
      }
      for (const r of byService('reservation')) {
        expect(r.headers['pos-access-token']).toBeUndefined();
        expect(r.headers['reservation-access-token']).toBe(LA_TERRAZZA['Reservation-Access-Token']);
        for (const h of ['employee-token', 'store-pin-code', 'slug-name']) expect(r.headers[h]).toBeUndefined();
      }
      for (const r of stack.sandbox.requests) {
        expect(r.headers.cookie).toBeUndefined();
        expect(r.headers['x-forwarded-for']).toBeUndefined();
        expect(r.headers['x-api-key']).toBeUndefined();
        expect(r.headers['user-agent']).not.toBe('partner-app/1.0');
      }
    });

    it('never mixes the credentials of concurrent requests from two venues', async () => {
      const tenants = { A: LA_TERRAZZA, B: BISTRO_NORD };
      const calls = Array.from({ length: 200 }, (_, i) => {
        const tenant = i % 2 === 0 ? 'A' : 'B';
        const checkId = tenant === 'A' ? SAMPLE.laTerrazza.openCheckId : SAMPLE.bistroNord.openCheckId;
        return stack.gql(`{ check(id: "${checkId}") { id } employees(perPage: 1) { nodes { id } } }`, undefined, { ...tenants[tenant], 'x-request-id': `${tenant}-${i}` });
      });
      const results = await Promise.all(calls);
      expect(results.every((r) => r.body.errors === undefined)).toBe(true);
      // Each request got its own venue's check, whether it read it or joined a read in flight (same venue only).
      const ownCheck = (i: number) => (i % 2 === 0 ? SAMPLE.laTerrazza.openCheckId : SAMPLE.bistroNord.openCheckId);
      expect(results.map((r) => (r.body.data as { check: { id: string } }).check.id)).toEqual(results.map((_r, i) => ownCheck(i)));
      // Two reads per request, made or joined (src/upstreams/sharedReads.ts); every call made is one the sandbox saw.
      const reads = Array.from({ length: 200 }, (_, i) => logLine(stack, `${i % 2 === 0 ? 'A' : 'B'}-${i}`).upstreamCalls as Array<{ source: string }>);
      expect(reads.map((r) => r.length)).toEqual(Array.from({ length: 200 }, () => 2));
      expect(stack.sandbox.requests).toHaveLength(reads.flat().filter((r) => r.source === 'upstream').length);
      for (const r of stack.sandbox.requests) {
        const tenant = String(r.headers['x-request-id']).charAt(0) as 'A' | 'B';
        expect(r.headers['pos-access-token']).toBe(tenants[tenant]['Pos-Access-Token']);
      }
    });

    it('writes no credential into the logs', () => {
      const secrets = [...Object.values(LA_TERRAZZA), ...Object.values(BISTRO_NORD)];
      expect(stack.logs.length).toBeGreaterThan(0);
      expect(leakedSecrets(stack.logs.join('\n'), secrets)).toEqual([]);
    });
  });
});
