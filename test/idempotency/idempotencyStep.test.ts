import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/logger';
import { createGateway } from '../../src/server';
import { SAMPLE } from '../../src/sandbox';
import { sha256Hex } from '../../src/sha256';
import { BISTRO_NORD, LA_TERRAZZA, logLine, startStack, type Stack } from '../support/stack';
import { closedPort } from '../support/upstreamServer';

const BOOK = `mutation Book($input: CreateReservationInput!) { createReservation(input: $input) { reservation { id guestCount } } }`;

/** The gateway in one process with its in-memory store, in front of the sandbox (REDIS_URL unset). */
describe('idempotencyStep', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ env: { IDEMPOTENCY_REQUIRED: 'createOffDay', IDEMPOTENCY_MAX_RESPONSE_BYTES: '1024' } });
  });
  afterAll(() => stack.close());
  beforeEach(() => stack.sandbox.resetRequests());

  let keys = 0;
  const newKey = () => `step-test:${process.pid}:${++keys}`;
  const input = (guestCount = 2) => ({ revenueCenterId: SAMPLE.laTerrazza.revenueCenterIds[0], date: '2099-12-24T19:30', guestCount, customer: { firstName: 'Ada' } });
  const posts = () => stack.sandbox.requests.filter((r) => r.method === 'POST').length;

  async function send(body: unknown, key: string | undefined, headers: Record<string, string> = LA_TERRAZZA) {
    const res = await fetch(`${stack.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers, ...(key === undefined ? {} : { 'Idempotency-Key': key }) },
      body: JSON.stringify(body),
    });
    return { status: res.status, headers: res.headers, text: await res.text() };
  }
  const codeOf = (text: string) => (JSON.parse(text) as { errors?: Array<{ extensions?: { code?: string } }> }).errors?.[0]?.extensions?.code;

  it('runs the first request once and replays it byte for byte with Idempotent-Replayed', async () => {
    const key = newKey();
    const first = await send({ query: BOOK, variables: { input: input() } }, key);
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await send({ query: BOOK, variables: { input: input() } }, key);
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(posts()).toBe(1);
  });

  it('guards a mutation whose body carries extensions Apollo ignores, such as "persistedQuery": null', async () => {
    const key = newKey();
    const body = { query: BOOK, variables: { input: input() }, extensions: { persistedQuery: null, other: 1 } };
    const first = await send(body, key);
    const again = await send(body, key);
    expect([first.status, again.headers.get('idempotent-replayed'), again.text]).toEqual([200, 'true', first.text]);
    expect(posts()).toBe(1);
  });

  it('treats variables with their keys in another order as the same request', async () => {
    const key = newKey();
    const { revenueCenterId, date, guestCount, customer } = input();
    await send({ query: BOOK, variables: { input: { revenueCenterId, date, guestCount, customer } } }, key);
    const again = await send({ query: BOOK, variables: { input: { customer, guestCount, date, revenueCenterId } } }, key);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(posts()).toBe(1);
  });

  it('refuses the same key with other variables with 422 IDEMPOTENCY_KEY_REUSED', async () => {
    const key = newKey();
    await send({ query: BOOK, variables: { input: input(2) } }, key);
    const other = await send({ query: BOOK, variables: { input: input(3) } }, key);
    expect(other.status).toBe(422);
    expect(codeOf(other.text)).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(posts()).toBe(1);
  });

  it('keeps nothing for a request refused before any upstream call, so the key stays free', async () => {
    const key = newKey();
    const bad = await send({ query: BOOK, variables: { input: { ...input(), revenueCenterId: 'not-a-uuid' } } }, key);
    expect(codeOf(bad.text)).toBe('BAD_USER_INPUT');
    expect(posts()).toBe(0);
    // Were anything kept under the key, another fingerprint would get 422.
    const good = await send({ query: BOOK, variables: { input: input() } }, key, { ...LA_TERRAZZA, 'x-request-id': 'idem-released-2' });
    expect(good.status).toBe(200);
    expect(codeOf(good.text)).toBeUndefined();
    expect(posts()).toBe(1);
  });

  it('scopes a key to the caller: another venue with the same key runs its own request', async () => {
    const key = newKey();
    const mine = await send({ query: BOOK, variables: { input: input() } }, key);
    const theirs = await send({ query: BOOK, variables: { input: { ...input(), revenueCenterId: SAMPLE.bistroNord.revenueCenterIds[0] } } }, key, BISTRO_NORD);
    expect(theirs.status).toBe(200);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.text).not.toBe(mine.text);
    expect(posts()).toBe(2);
  });

  it('recognises a mutation sent as a persisted-query hash alone and replays it under its key', async () => {
    const key = newKey();
    const persistedQuery = { version: 1, sha256Hash: sha256Hex(BOOK) };
    const first = await send({ query: BOOK, variables: { input: input() }, extensions: { persistedQuery } }, key);
    expect(first.status).toBe(200);
    const byHash = await send({ variables: { input: input() }, extensions: { persistedQuery } }, key);
    expect([byHash.text, byHash.headers.get('idempotent-replayed')]).toEqual([first.text, 'true']);
    expect(posts()).toBe(1);
  });

  it('serves a query with the header as usual', async () => {
    const key = newKey();
    const query = { query: `query { employees(perPage: 1) { nodes { id } } }` };
    await send(query, key);
    const again = await send(query, key);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(stack.sandbox.requests.filter((r) => r.method === 'GET')).toHaveLength(2);
  });

  it('refuses a malformed key and a batch with a key with 400 BAD_USER_INPUT, before any upstream call', async () => {
    const malformed = await send({ query: BOOK, variables: { input: input() } }, 'has spaces');
    expect([malformed.status, codeOf(malformed.text)]).toEqual([400, 'BAD_USER_INPUT']);
    expect(JSON.parse(malformed.text).errors[0].message).toContain('Idempotency-Key');
    const long = await send({ query: BOOK, variables: { input: input() } }, 'k'.repeat(256));
    expect(long.status).toBe(400);
    const batch = await send([{ query: BOOK, variables: { input: input() } }], newKey());
    expect([batch.status, codeOf(batch.text)]).toEqual([400, 'BAD_USER_INPUT']);
    expect(posts()).toBe(0);
  });

  it('refuses an IDEMPOTENCY_REQUIRED mutation without a key, naming the header', async () => {
    const offDay = `mutation { createOffDay(input: { revenueCenterId: "${SAMPLE.laTerrazza.revenueCenterIds[0]}", date: "2099-12-31T00:00", partial: false }) { offDay { date } } }`;
    const res = await send({ query: offDay }, undefined);
    expect([res.status, codeOf(res.text)]).toEqual([400, 'BAD_USER_INPUT']);
    expect(JSON.parse(res.text).errors[0].message).toContain('createOffDay requires an Idempotency-Key header');
    expect(posts()).toBe(0);
    // Mutations not listed still run without a key.
    expect((await send({ query: BOOK, variables: { input: input() } }, undefined)).status).toBe(200);
  });

  it('keeps a 422 in place of a response over IDEMPOTENCY_MAX_RESPONSE_BYTES, so a repeat never runs again', async () => {
    const key = newKey();
    const big = `mutation Big($input: CreateReservationInput!) { createReservation(input: $input) { reservation { id status type date createdAt guestCount note customer { id firstName lastName typeName } publicUrl tableIds } } }`;
    const note = 'n'.repeat(1200);
    const first = await send({ query: big, variables: { input: { ...input(), note } } }, key);
    expect(first.status).toBe(200);
    const again = await send({ query: big, variables: { input: { ...input(), note } } }, key);
    expect([again.status, codeOf(again.text)]).toEqual([422, 'IDEMPOTENCY_KEY_REUSED']);
    expect(JSON.parse(again.text).errors[0].message).toContain('larger than the gateway keeps');
    expect(posts()).toBe(1);
  });

  it('says what it did on the request log line and in the metrics, with the key only as a hash', async () => {
    const key = newKey();
    await send({ query: BOOK, variables: { input: input() } }, key, { ...LA_TERRAZZA, 'x-request-id': 'idem-log-1' });
    await send({ query: BOOK, variables: { input: input() } }, key, { ...LA_TERRAZZA, 'x-request-id': 'idem-log-2' });
    await send({ query: BOOK, variables: { input: input(5) } }, key, { ...LA_TERRAZZA, 'x-request-id': 'idem-log-3' });
    expect(logLine(stack, 'idem-log-1')).toMatchObject({ idempotency: 'stored', operationName: 'Book' });
    // A replayed success is a success, not an error, on the line and in the request metrics.
    expect(logLine(stack, 'idem-log-2')).toMatchObject({ idempotency: 'replayed', httpStatus: 200, outcome: 'success', errorCodes: [] });
    expect(logLine(stack, 'idem-log-3')).toMatchObject({ idempotency: 'reused', httpStatus: 422, outcome: 'error', errorCodes: ['IDEMPOTENCY_KEY_REUSED'] });
    const hash = logLine(stack, 'idem-log-1').idempotencyKey;
    expect(hash).toMatch(/^[0-9a-f]{16}$/);
    expect(logLine(stack, 'idem-log-2').idempotencyKey).toBe(hash);
    expect(stack.logs.join('\n')).not.toContain(key);
    const metrics = await (await fetch(`${stack.url}/metrics`)).text();
    for (const outcome of ['stored', 'replayed', 'reused', 'released', 'invalid', 'missing', 'too_large']) {
      expect(metrics).toMatch(new RegExp(`^tablegraph_idempotency_requests_total\\{outcome="${outcome}"\\} [1-9]`, 'm'));
    }
    expect(metrics).not.toContain(key);
  });
});

/** A response larger than the in-memory store's whole bound: lru-cache would refuse it, and a retry would run again. */
describe('idempotencyStep with a small in-memory store', () => {
  it('keeps a 422 in place of a response over half of IDEMPOTENCY_MEMORY_MAX_BYTES, so a repeat never runs again', async () => {
    const stack = await startStack({ env: { IDEMPOTENCY_MEMORY_MAX_BYTES: '65536', MAX_ALIASES: '50' } });
    try {
      const notes = Array.from({ length: 40 }, (_, i) => `n${i}: note`).join(' ');
      const query = `mutation Big($input: CreateReservationInput!) { createReservation(input: $input) { reservation { id ${notes} } } }`;
      const input = { revenueCenterId: SAMPLE.laTerrazza.revenueCenterIds[0], date: '2099-12-24T19:30', guestCount: 2, customer: { firstName: 'Ada' }, note: 'n'.repeat(2000) };
      const send = async () => {
        const res = await fetch(`${stack.url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...LA_TERRAZZA, 'Idempotency-Key': 'small-store-1' },
          body: JSON.stringify({ query, variables: { input } }),
        });
        return { status: res.status, text: await res.text() };
      };
      const first = await send();
      expect(first.status).toBe(200);
      expect(first.text.length).toBeGreaterThan(65536);
      const again = await send();
      expect([again.status, (JSON.parse(again.text) as { errors?: Array<{ extensions?: { code?: string } }> }).errors?.[0]?.extensions?.code]).toEqual([422, 'IDEMPOTENCY_KEY_REUSED']);
      expect(stack.sandbox.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    } finally {
      await stack.close();
    }
  });
});

/** A reservation service that refuses connections: the POST never goes out, so nothing may be kept. */
describe('idempotencyStep with an unreachable upstream', () => {
  it('keeps nothing after a refused connection, so a retry with the key runs again', async () => {
    const unreachable = `http://127.0.0.1:${await closedPort()}`;
    const gateway = createGateway({
      config: loadConfig({ NODE_ENV: 'test', RESERVATION_BASE_URL: unreachable, POS_BASE_URL: unreachable }),
      logger: createLogger({ level: 'silent', destination: new Writable({ write: (_c, _e, done) => done() }) }),
    });
    await gateway.start();
    await new Promise<void>((resolve) => gateway.server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(gateway.server.address() as AddressInfo).port}/graphql`;
    const body = JSON.stringify({ query: BOOK, variables: { input: { revenueCenterId: SAMPLE.laTerrazza.revenueCenterIds[0], date: '2099-12-24T19:30' } } });
    const send = () => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'Idempotency-Key': 'refused-1', ...LA_TERRAZZA }, body });
    try {
      for (let i = 0; i < 2; i += 1) {
        const res = await send();
        const text = await res.text();
        expect([res.headers.get('idempotent-replayed'), JSON.parse(text).errors[0].extensions.code]).toEqual([null, 'UPSTREAM_UNAVAILABLE']);
      }
      const metrics = await gateway.metrics.render();
      expect(metrics.text).toMatch(/^tablegraph_idempotency_requests_total\{outcome="released"\} 2$/m);
    } finally {
      await gateway.stop();
    }
  });
});
