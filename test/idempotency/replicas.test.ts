import { appendFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { callerHash } from '../../src/credentials';
import { sha256Hex as sha256 } from '../../src/sha256';
import { REDIS_KEY_PREFIX } from '../../src/idempotency/store';
import { startBookingUpstream, type BookingUpstream } from '../support/bookingUpstream';
import { headerLookup } from '../support/fixtures';
import { eventually, spawnGateway, type GatewayProcess } from '../support/gatewayProcess';
import { describeWithRedis, startRedisServer, type RedisServer } from '../support/redisServer';
import { BISTRO_NORD, LA_TERRAZZA } from '../support/stack';

const BOOK = `mutation Book($input: CreateReservationInput!) { createReservation(input: $input) { reservation { id } } }`;
const input = (firstName: string, guestCount = 2) => ({ revenueCenterId: randomUUID(), date: '2099-12-24T19:30', guestCount, customer: { firstName } });

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

// A real Redis and real gateway processes.
const withRedis = describeWithRedis('the idempotency replica tests');

/** Two gateway processes sharing one Redis in front of one reservation service that counts its bookings. */
withRedis('idempotency across replicas', () => {
  let redis: RedisServer;
  let upstream: BookingUpstream;
  let inspect: Redis;
  const gateways: GatewayProcess[] = [];
  let a: string; // IDEMPOTENCY_FAIL_OPEN off
  let b: string; // IDEMPOTENCY_FAIL_OPEN=true
  let c: string; // IDEMPOTENCY_TTL_SECONDS=1
  let d: string; // UPSTREAM_HEADERS_TIMEOUT_MS=1000, for the timeout case only

  async function start(env: Record<string, string>): Promise<string> {
    const gateway = spawnGateway('src/main.ts', {
      RESERVATION_BASE_URL: upstream.url,
      POS_BASE_URL: upstream.url,
      REDIS_URL: redis.url,
      PORT: '0',
      HOST: '127.0.0.1',
      // Long enough that a held POST outlives any stall of a loaded machine (a full run's other suites, a browser
      // among them) while the test works around it.
      UPSTREAM_HEADERS_TIMEOUT_MS: '25000',
      REQUEST_TIMEOUT_MS: '30000',
      ...env,
    });
    gateways.push(gateway);
    const listening = await gateway.waitForLog('gateway listening', 30_000);
    await gateway.waitForLog('gateway ready', 30_000);
    return `http://127.0.0.1:${String(listening.port)}`;
  }

  beforeAll(async () => {
    // One after the other: a failed start leaves the other assigned, for afterAll to close.
    upstream = await startBookingUpstream();
    redis = await startRedisServer();
    inspect = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    [a, b, c, d] = await Promise.all([
      start({}),
      start({ IDEMPOTENCY_FAIL_OPEN: 'true' }),
      start({ IDEMPOTENCY_TTL_SECONDS: '1' }),
      start({ UPSTREAM_HEADERS_TIMEOUT_MS: '1000' }),
    ]);
    // A fresh process's first requests are slow (lazy loading); the concurrency test should not measure that.
    await Promise.all([a, b, c, d].map((url) => untilKeysServed(url)));
  }, 90_000);

  afterAll(async () => {
    inspect?.disconnect();
    for (const g of gateways) {
      // The run's log check (test/support/globalTeardown.js) covers these processes' lines too.
      if (process.env.TABLEGRAPH_TEST_LOG) appendFileSync(process.env.TABLEGRAPH_TEST_LOG, g.stdout());
      g.kill();
    }
    await Promise.all(gateways.map((g) => g.exited));
    upstream?.release();
    await Promise.all([upstream?.close(), redis?.stop()]);
  });

  async function send(url: string, key: string | undefined, variables: Record<string, unknown>, headers: Record<string, string> = LA_TERRAZZA): Promise<Answer> {
    const res = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers, ...(key === undefined ? {} : { 'Idempotency-Key': key }) },
      body: JSON.stringify({ query: BOOK, operationName: 'Book', variables }),
    });
    return { status: res.status, headers: res.headers, text: await res.text() };
  }
  /**
   * Until `url` serves keyed mutations: its idempotency store is reached (readiness never waits for Redis). Each try
   * is refused before any upstream call, so it leaves nothing behind.
   */
  async function untilKeysServed(url: string): Promise<void> {
    const served = await eventually(async () => codeOf(await send(url, `warm-up-${randomUUID()}`, { input: { revenueCenterId: 'warm-up' } })) === 'BAD_USER_INPUT', 20_000);
    if (!served) throw new Error(`${url} never served a keyed mutation`);
  }
  const codeOf = (answer: Answer) => (JSON.parse(answer.text) as { errors?: Array<{ extensions?: { code?: string } }> }).errors?.[0]?.extensions?.code;
  // The scope: the caller's credentials and the client the clients file named (none here), then the key.
  const redisKey = (key: string, headers = LA_TERRAZZA) =>
    REDIS_KEY_PREFIX + sha256(`${callerHash(headerLookup(Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]))))}\n\n${key}`);
  const held = { key: `held-${randomUUID()}`, variables: { input: input('Hold') } };
  let success: Answer;

  it('runs 20 concurrent identical requests spread over both replicas exactly once; the rest get 409', async () => {
    const settled: Answer[] = [];
    const all = Array.from({ length: 20 }, (_, i) => send(i % 2 === 0 ? a : b, held.key, held.variables).then((r) => (settled.push(r), r)));
    // The booking is held upstream until every other request has had its answer.
    expect(await eventually(() => settled.length === 19, 30_000)).toBe(true);
    expect(upstream.posts()).toBe(1);
    // The running request's lease carries an expiry, so a replica that died now would not hold the key forever.
    expect(await inspect.pttl(redisKey(held.key))).toBeGreaterThan(0);
    // Another fingerprint is told 422 at once, not 409, even while the first request runs.
    const reused = await send(b, held.key, { input: input('Hold', 7) });
    expect([reused.status, codeOf(reused)]).toEqual([422, 'IDEMPOTENCY_KEY_REUSED']);
    upstream.release();
    const answers = await Promise.all(all);
    const successes = answers.filter((r) => r.status === 200 && r.headers.get('idempotent-replayed') === null);
    expect(successes).toHaveLength(1);
    success = successes[0]!;
    expect(codeOf(success)).toBeUndefined();
    for (const other of answers.filter((r) => r !== success)) {
      expect(other.status === 409 || other.headers.get('idempotent-replayed') === 'true').toBe(true);
      if (other.status === 409) expect([codeOf(other), other.headers.get('retry-after')]).toEqual(['IDEMPOTENCY_KEY_IN_USE', '1']);
    }
    expect(upstream.posts()).toBe(1);
    // Both replicas answered some of them.
    expect(await eventually(() => gateways.slice(0, 2).every((g) => g.logs().some((l) => l.idempotency === 'in_use' || l.idempotency === 'stored')))).toBe(true);
  }, 60_000);

  it('replays the stored response on either replica, byte for byte, with Idempotent-Replayed: true', async () => {
    for (const url of [a, b]) {
      const again = await send(url, held.key, held.variables);
      expect([again.status, again.text, again.headers.get('idempotent-replayed')]).toEqual([200, success.text, 'true']);
      expect(again.headers.get('content-type')).toBe(success.headers.get('content-type'));
    }
    expect(upstream.posts()).toBe(1);
    // Kept for the default IDEMPOTENCY_TTL_SECONDS (a day).
    expect(await inspect.pttl(redisKey(held.key))).toBeGreaterThan(86_000_000);
  });

  it('refuses the key with other variables with 422 on the other replica once the first has finished', async () => {
    const before = upstream.posts();
    const key = `done-${randomUUID()}`;
    const variables = { input: input('Ada') };
    expect((await send(a, key, variables)).status).toBe(200);
    const other = await send(b, key, { input: input('Ada') });
    expect([other.status, codeOf(other)]).toEqual([422, 'IDEMPOTENCY_KEY_REUSED']);
    expect(upstream.posts()).toBe(before + 1);
  });

  it('leaves the key free after a request refused before any upstream call', async () => {
    const key = `refused-${randomUUID()}`;
    const before = upstream.posts();
    const refused = await send(a, key, { input: { ...input('Ada'), revenueCenterId: 'not-a-uuid' } });
    expect(codeOf(refused)).toBe('BAD_USER_INPUT');
    expect(await inspect.exists(redisKey(key))).toBe(0);
    const retried = await send(b, key, { input: input('Ada') });
    expect([retried.status, codeOf(retried), retried.headers.get('idempotent-replayed')]).toEqual([200, undefined, null]);
    expect(upstream.posts()).toBe(before + 1);
  });

  it.each([
    ['an upstream timeout', 'Slow', 'UPSTREAM_TIMEOUT'],
    ['an upstream 5xx', 'Broken', 'UPSTREAM_ERROR'],
  ])('stores %s and replays it: the booking is not sent twice', async (_what, guest, code) => {
    const key = `failed-${randomUUID()}`;
    const before = upstream.posts();
    const variables = { input: input(guest) };
    // The first goes to the replica with the short upstream timeout; the replay comes from another.
    const first = await send(d, key, variables);
    expect(codeOf(first)).toBe(code);
    const again = await send(b, key, variables);
    expect([again.text, again.headers.get('idempotent-replayed')]).toEqual([first.text, 'true']);
    expect(upstream.posts()).toBe(before + 1);
  });

  it("does not show one venue's stored response to another venue using the same key", async () => {
    const before = upstream.posts();
    const theirs = await send(b, held.key, held.variables, BISTRO_NORD);
    expect([theirs.status, codeOf(theirs), theirs.headers.get('idempotent-replayed')]).toEqual([200, undefined, null]);
    expect(theirs.text).not.toBe(success.text);
    expect(upstream.posts()).toBe(before + 1);
  });

  it('runs a request again once its stored response has outlived IDEMPOTENCY_TTL_SECONDS', async () => {
    const key = `ttl-${randomUUID()}`;
    const variables = { input: input('Ada') };
    const first = await send(c, key, variables);
    const before = upstream.posts();
    expect(await eventually(async () => (await inspect.exists(redisKey(key))) === 0, 5000)).toBe(true);
    const again = await send(c, key, variables);
    expect([again.status, again.headers.get('idempotent-replayed')]).toEqual([200, null]);
    expect(again.text).not.toBe(first.text);
    expect(upstream.posts()).toBe(before + 1);
  });

  it('answers 409 IDEMPOTENCY_OUTCOME_UNKNOWN, never a second booking, after the replica running a booking is killed once it reached the service', async () => {
    const e = await start({});
    const dying = gateways[gateways.length - 1];
    await untilKeysServed(e);
    const key = `killed-${randomUUID()}`;
    // The reservation service receives the booking and never answers it (as if the answer were on its way back).
    const variables = { input: input('Slow') };
    const before = upstream.posts();
    const lost = send(e, key, variables).catch(() => undefined);
    expect(await eventually(() => upstream.posts() === before + 1, 30_000)).toBe(true);
    dying.child.kill('SIGKILL');
    await Promise.all([dying.exited, lost]);
    // The key was marked sent before the first byte went; the dead replica's lease lapses (as its PX would).
    expect(await inspect.exists(`${redisKey(key)}:sent`)).toBe(1);
    await inspect.pexpire(redisKey(key), 1);
    expect(await eventually(async () => (await inspect.exists(redisKey(key))) === 0)).toBe(true);
    for (const url of [a, b]) {
      const retried = await send(url, key, variables, { ...LA_TERRAZZA, 'x-request-id': `after-kill-${url.split(':')[2]}` });
      expect([retried.status, codeOf(retried)]).toEqual([409, 'IDEMPOTENCY_OUTCOME_UNKNOWN']);
    }
    expect(upstream.posts()).toBe(before + 1);
    expect(await eventually(() => gateways[0].logs().some((l) => l.idempotency === 'outcome_unknown' && l.httpStatus === 409))).toBe(true);
    expect(gateways[0].logs().some((l) => String(l.msg).startsWith('idempotency outcome unknown'))).toBe(true);
    expect(await (await fetch(`${a}/metrics`)).text()).toMatch(/^tablegraph_idempotency_requests_total\{outcome="outcome_unknown"\} 1$/m);
  }, 60_000);

  it('with Redis gone: refuses keyed mutations with 503, runs them when fail-open, and never touches requests without a key', async () => {
    // Gateway b is fail-open: a Redis command that timed out on a loaded machine in an earlier test may have run one unguarded already.
    const unguarded = async () => Number(/^tablegraph_idempotency_requests_total\{outcome="unguarded"\} (\d+)$/m.exec(await (await fetch(`${b}/metrics`)).text())?.[1] ?? 0);
    const unguardedBefore = await unguarded();
    await redis.stop();
    const before = upstream.posts();
    const refused = await send(a, `gone-${randomUUID()}`, { input: input('Ada') });
    expect([refused.status, codeOf(refused)]).toEqual([503, 'IDEMPOTENCY_UNAVAILABLE']);
    expect(upstream.posts()).toBe(before);
    const unkeyed = await send(a, undefined, { input: input('Ada') });
    expect([unkeyed.status, codeOf(unkeyed)]).toEqual([200, undefined]);
    const open = await send(b, `gone-${randomUUID()}`, { input: input('Ada') }, { ...LA_TERRAZZA, 'x-request-id': 'idem-fail-open' });
    expect([open.status, codeOf(open)]).toEqual([200, undefined]);
    expect(upstream.posts()).toBe(before + 2);
    const line = await eventually(() => gateways[1].logs().some((l) => l.requestId === 'idem-fail-open' && l.idempotency === 'unguarded'));
    expect(line).toBe(true);
    expect(await unguarded()).toBe(unguardedBefore + 1);
  });
});
