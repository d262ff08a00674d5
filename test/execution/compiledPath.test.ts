import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getOperationAST, parse, print } from 'graphql';
import { SAMPLE } from '../../src/sandbox';
import { LA_TERRAZZA, logLine, startStack, type Stack } from '../support/stack';
import { startFaultyUpstream, type FaultMode, type FaultyUpstream } from '../support/faultyUpstream';
import { MANIFEST_PATH, byPersistedQuery, manifest, operation } from '../trustedDocuments/support';
import { ANONYMOUS, FRUGAL_KEY, TRUSTED_ONLY_CLIENT, clientsFile, comparedHeaders, countedMetrics, idsIn, maskNewIds, maskRetryWait, requestLog, type Answer as DifferentialAnswer } from './differential';

/**
 * The compiled path (src/execution/compiledPath.ts) answers exactly as Apollo does: the same requests go to a gateway
 * with COMPILED_PATH on and to one with it off, and every status, content type, body and log line must agree; only
 * the log line's `execution: compiled` tells which path served it.
 */
const ACCEPT_HEADERS = ['application/graphql-response+json', 'application/graphql-response+json, application/json;q=0.9', '*/*', 'application/json'];

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
    // The compiled executor answers with the content type Apollo chose for the same accept header: Apollo answers
    // each accept header of these tests once first, on both gateways alike.
    for (const stack of [compiled, apollo]) {
      for (const accept of [undefined, ...ACCEPT_HEADERS]) {
        await fetch(`${stack.url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'apollographql-client-name': 'web', ...(accept ? { accept } : {}) },
          body: JSON.stringify({ query: '{ __typename }' }),
        });
      }
    }
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
    for (const accept of ACCEPT_HEADERS) {
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
    const [fast, slow] = [await countedMetrics(compiled), await countedMetrics(apollo)];
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

/**
 * The two executors compared over generated requests: every query of the trusted-document manifest (operations/),
 * with variants of its variables made from their types (a valid value, one the schema or the contract refuses, a
 * size over MAX_UPSTREAM_CALLS, absent), sent by id, by `documentId` and as text, under each client policy (a
 * first-party app, a partner under a small maxCost, an app bound to trusted documents, the anonymous policy), with the
 * upstreams answering well, with 500, not at all (timeout), or with a field that deviates. Every status, header, body,
 * log line and the metrics must agree between COMPILED_PATH on and off. Mutations, which only Apollo executes, are
 * compared in compiledPath.mutations.test.ts.
 */
describe('the compiled path over generated requests', () => {
  let upstream: FaultyUpstream;
  let compiled: Stack;
  let apollo: Stack;
  let dir: string | undefined;
  let sent = 0;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tablegraph-compiled-generated-'));
    upstream = await startFaultyUpstream('ok');
    const env = {
      TRUSTED_DOCUMENTS: MANIFEST_PATH,
      CLIENTS_FILE: clientsFile(dir),
      MAX_UPSTREAM_CALLS: '40',
      JIT_MIN_USES: '1',
      RESERVATION_BASE_URL: upstream.url,
      POS_BASE_URL: upstream.url,
      // Deterministic upstream handling, so both gateways make the same calls: no retries, no breaker.
      UPSTREAM_RETRIES: '0',
      BREAKER_MINIMUM_CALLS: '1000000',
      UPSTREAM_HEADERS_TIMEOUT_MS: '150',
      UPSTREAM_BODY_TIMEOUT_MS: '150',
    };
    [compiled, apollo] = await Promise.all([startStack({ env }), startStack({ env: { ...env, COMPILED_PATH: 'false' } })]);
  });
  afterAll(async () => {
    try {
      await Promise.all([compiled.close(), apollo.close(), upstream.close()]);
    } finally {
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    }
  });

  interface Generated {
    name: string;
    body: unknown;
    headers: Record<string, string>;
    fault: FaultMode;
  }

  /** Values for a variable of this type: the first valid, the others each refused somewhere (schema, contract, limit). */
  const valuesOf = (type: string): unknown[] => {
    switch (type.replace(/!$/, '')) {
      case 'ID':
        return [SAMPLE.laTerrazza.openCheckId, 'not-a-uuid'];
      case 'Date':
        return ['2026-11-21', 'tomorrow'];
      case 'Int':
        return [2, 'many', 500];
      default:
        return [];
    }
  };

  function generate(): Generated[] {
    const out: Generated[] = [];
    const queries = manifest().operations.filter((op) => op.type === 'query');
    for (const op of queries) {
      const definition = getOperationAST(parse(op.body), op.name);
      const variables = (definition?.variableDefinitions ?? []).map((v) => ({ name: v.variable.name.value, values: valuesOf(print(v.type)) }));
      const base = Object.fromEntries(variables.filter((v) => v.values.length > 0).map((v) => [v.name, v.values[0]]));
      const variants: Array<[string, Record<string, unknown> | undefined]> = [['valid', base]];
      for (const v of variables) for (const value of v.values.slice(1)) variants.push([`${v.name}=${JSON.stringify(value)}`, { ...base, [v.name]: value }]);
      if (variables.length > 0) variants.push(['no variables', undefined]);
      const forms: Array<[string, (vars: Record<string, unknown> | undefined) => unknown]> = [
        ['by id', (vars) => byPersistedQuery(op.id, vars)],
        ['by documentId', (vars) => ({ documentId: `sha256:${op.id}`, variables: vars })],
        ['as text', (vars) => ({ query: op.body, operationName: op.name, variables: vars })],
      ];
      for (const [form, body] of forms) {
        for (const [variant, vars] of variants) out.push({ name: `${op.name} ${form} ${variant}`, body: body(vars), headers: {}, fault: 'ok' });
        out.push({ name: `${op.name} ${form} frugal client`, body: body(base), headers: { 'x-api-key': FRUGAL_KEY }, fault: 'ok' });
        out.push({ name: `${op.name} ${form} anonymous client`, body: body(base), headers: ANONYMOUS, fault: 'ok' });
        for (const fault of ['status500', 'hang', 'wrongShape'] as const) out.push({ name: `${op.name} ${form} upstream ${fault}`, body: body(base), headers: {}, fault });
        const trustedOnly = { 'apollographql-client-name': TRUSTED_ONLY_CLIENT };
        for (const fault of ['ok', 'status500'] as const) out.push({ name: `${op.name} ${form} trusted-only client upstream ${fault}`, body: body(base), headers: trustedOnly, fault });
        out.push({ name: `${op.name} ${form} trusted-only client ${variants[1]?.[0] ?? 'no variables'}`, body: body(variants[1]?.[1]), headers: trustedOnly, fault: 'ok' });
      }
    }
    return out;
  }

  interface Answer extends DifferentialAnswer {
    /** The log line's `execution`, kept out of the comparison: it is what tells the two executors apart. */
    execution: unknown;
  }

  async function exchange(stack: Stack, request: Generated, requestId: string): Promise<Answer> {
    const bodyText = JSON.stringify(request.body);
    const res = await fetch(`${stack.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'apollographql-client-name': 'web', ...LA_TERRAZZA, 'x-request-id': requestId, ...request.headers },
      body: bodyText,
    });
    const text = await res.text();
    const { execution, ...log } = requestLog(stack, requestId);
    const headers = comparedHeaders(res.headers);
    // The stand-in upstream makes a new UUID for each nested record it sends: those are masked, the request's ids are not.
    return { status: res.status, headers, text: maskRetryWait(maskNewIds(text, idsIn(bodyText))), log, execution };
  }

  it('answers every generated request alike, with and without the compiled executor', async () => {
    const requests = generate();
    expect(requests.length).toBeGreaterThan(100);
    const differences: string[] = [];
    const answers: Array<[Generated, Answer]> = [];
    const compare = async (request: Generated) => {
      const requestId = `generated-${++sent}`;
      const [fast, slow] = await Promise.all([exchange(compiled, request, requestId), exchange(apollo, request, requestId)]);
      const { execution: _fe, ...fastCompared } = fast;
      const { execution: _se, ...slowCompared } = slow;
      if (JSON.stringify(fastCompared) !== JSON.stringify(slowCompared)) differences.push(`${request.name}:\n  compiled ${JSON.stringify(fastCompared).slice(0, 600)}\n  apollo   ${JSON.stringify(slowCompared).slice(0, 600)}`);
      answers.push([request, fast]);
    };
    for (const request of requests.filter((r) => r.fault !== 'hang')) {
      upstream.mode = request.fault;
      await compare(request);
    }
    // The timeouts all at once: each only waits out the gateway's upstream timeout.
    upstream.mode = 'hang';
    await Promise.all(requests.filter((r) => r.fault === 'hang').map(compare));
    upstream.mode = 'ok';
    expect(differences).toEqual([]);
    // The comparison covered what it claims: the compiled executor served some requests, and the trusted-only client
    // was served by id and refused as text.
    expect(answers.filter(([, a]) => a.execution === 'compiled').length).toBeGreaterThan(50);
    const trustedOnly = answers.filter(([r]) => r.headers['apollographql-client-name'] === TRUSTED_ONLY_CLIENT);
    const refusedAsText = ([r, a]: [Generated, Answer]) => [r.name.includes(' as text '), a.status === 400 && a.text.includes('"PERSISTED_QUERY_NOT_IN_LIST"')];
    expect(trustedOnly.map(refusedAsText).filter(([text, refused]) => text !== refused)).toEqual([]);
    expect(trustedOnly.filter(([, a]) => a.status === 200 && a.execution === 'compiled').length).toBeGreaterThan(10);
    expect(await countedMetrics(compiled)).toEqual(await countedMetrics(apollo));
  }, 180_000);
});
