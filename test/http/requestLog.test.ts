import { SAMPLE } from '../../src/sandbox';
import { BISTRO_NORD, LA_TERRAZZA, startStack, type Stack } from '../support/stack';
import { closedPort } from '../support/upstreamServer';
import { leakedSecrets } from '../support/leaks';

type LogLine = Record<string, unknown>;
const parsed = (stack: Stack): LogLine[] => stack.logs.map((l) => JSON.parse(l) as LogLine);
const linesOf = (stack: Stack, msg: string, requestId: string) => parsed(stack).filter((l) => l.msg === msg && l.requestId === requestId);

describe('the logs', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack.close());

  describe('one line per GraphQL request', () => {
    it.each<[string, RequestInit, number]>([
      ['a body that is not JSON', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":' }, 400],
      ['a method other than GET and POST', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{}' }, 405],
      ['a cross-site GET (CSRF prevention)', { method: 'GET' }, 400],
    ])('logs and counts a request refused before execution: %s', async (_what, init, status) => {
      const requestId = `log-refused-${status}-${init.method}`;
      const res = await fetch(`${stack.url}/graphql?query=${encodeURIComponent('{ employees { nodes { id } } }')}`, {
        ...init,
        headers: { ...(init.headers as Record<string, string>), 'x-request-id': requestId },
      });
      expect(res.status).toBe(status);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const lines = linesOf(stack, 'graphql request', requestId);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ operationName: null, outcome: 'error', httpStatus: status, errorCodes: ['BAD_REQUEST'], upstreamCalls: [] });
      const metrics = await (await fetch(`${stack.url}/metrics`)).text();
      expect(metrics).toMatch(/tablegraph_graphql_requests_total\{operation="anonymous",outcome="error"\} [1-9]/);
    });

    it('carries the request id, operation, duration, outcome, error codes and each upstream call', async () => {
      await stack.gql(
        `query Mixed($open: ID!, $unknown: ID!) { a: check(id: $open) { id } b: check(id: $unknown) { id } }`,
        { open: SAMPLE.laTerrazza.openCheckId, unknown: SAMPLE.unknownId },
        { ...LA_TERRAZZA, 'x-request-id': 'log-mixed-1' },
      );
      const lines = linesOf(stack, 'graphql request', 'log-mixed-1');
      expect(lines).toHaveLength(1);
      const line = lines[0];
      expect(line).toMatchObject({ level: 30, operationName: 'Mixed', outcome: 'partial', errorCodes: ['NOT_FOUND'] });
      expect(line.durationMs).toEqual(expect.any(Number));
      const calls = line.upstreamCalls as LogLine[];
      expect(calls).toHaveLength(2);
      expect(calls).toEqual(
        expect.arrayContaining([
          { service: 'pos', method: 'GET', route: '/checks/:id', status: 200, durationMs: expect.any(Number), source: 'upstream' },
          { service: 'pos', method: 'GET', route: '/checks/:id', status: 404, failure: 'status', durationMs: expect.any(Number), source: 'upstream' },
        ]),
      );
    });

    it('says success with no error codes, and error when there is no data', async () => {
      await stack.gql(`query Staff { employees(perPage: 1) { nodes { id } } }`, undefined, { ...LA_TERRAZZA, 'x-request-id': 'log-ok-1' });
      expect(linesOf(stack, 'graphql request', 'log-ok-1')[0]).toMatchObject({ operationName: 'Staff', outcome: 'success', errorCodes: [] });
      await stack.gql(`query Broken { nope }`, undefined, { ...LA_TERRAZZA, 'x-request-id': 'log-bad-1' });
      expect(linesOf(stack, 'graphql request', 'log-bad-1')[0]).toMatchObject({ outcome: 'error', errorCodes: ['GRAPHQL_VALIDATION_FAILED'], upstreamCalls: [] });
    });
  });

  describe('one line per upstream failure', () => {
    it('logs a refusal (4xx) at info with the request id, route template and status', async () => {
      await stack.gql(`{ check(id: "${SAMPLE.unknownId}") { id } }`, undefined, { ...LA_TERRAZZA, 'x-request-id': 'log-404-1' });
      const lines = linesOf(stack, 'upstream call failed', 'log-404-1');
      expect(lines).toEqual([
        expect.objectContaining({ level: 30, upstream: 'pos', method: 'GET', route: '/checks/:id', status: 404, failure: 'status', durationMs: expect.any(Number) }),
      ]);
      expect(JSON.stringify(lines)).not.toContain(SAMPLE.unknownId);
    });

    it('logs a breakage (no connection) at warn', async () => {
      const broken = await startStack({ env: { POS_BASE_URL: `http://127.0.0.1:${await closedPort()}` } });
      try {
        await broken.gql(`{ employees { nodes { id } } }`, undefined, { ...LA_TERRAZZA, 'x-request-id': 'log-down-1' });
        const request = linesOf(broken, 'graphql request', 'log-down-1')[0];
        expect(request).toMatchObject({ outcome: 'error', errorCodes: ['UPSTREAM_UNAVAILABLE'] });
        // One line per attempt that failed (a retried GET makes several), each with the request's id.
        const failures = linesOf(broken, 'upstream call failed', 'log-down-1');
        expect(failures.length).toBeGreaterThanOrEqual(1);
        expect(failures).toHaveLength((request.upstreamCalls as unknown[]).length);
        for (const line of failures) expect(line).toMatchObject({ level: 40, upstream: 'pos', route: '/employees', status: null, failure: 'unavailable' });
      } finally {
        await broken.close();
      }
    });
  });

  it('never contains a credential, whatever failed', async () => {
    const wrong = { ...BISTRO_NORD, 'Pos-Access-Token': 'wrong-pos-token-9f8e7d', 'Reservation-Access-Token': 'wrong-res-token-6c5b4a' };
    await stack.gql(`{ employees { nodes { id } } reservation(id: "${SAMPLE.laTerrazza.reservationWithCheckId}") { id } }`, undefined, wrong);
    await stack.gql(`{ check(id: "${SAMPLE.unknownId}") { id } }`, undefined, { ...LA_TERRAZZA, cookie: 'session=cookie-secret-1234' });
    const secrets = [...Object.values(LA_TERRAZZA), ...Object.values(wrong), 'cookie-secret-1234'];
    const text = stack.logs.join('\n');
    expect(parsed(stack).some((l) => l.msg === 'upstream call failed' && l.status === 401)).toBe(true);
    expect(leakedSecrets(text, secrets)).toEqual([]);
  });
});
