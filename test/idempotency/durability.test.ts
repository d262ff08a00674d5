import { Writable } from 'node:stream';
import type { GraphqlRequest, GraphqlResponse } from '../../src/pipeline/types';
import { operationsOfBody } from '../../src/http/operationRequests';
import { createRequestRecord } from '../../src/pipeline/record';
import { idempotencyStep, requestFingerprint } from '../../src/idempotency/idempotencyStep';
import { REDIS_KEY_PREFIX, RedisIdempotencyStore } from '../../src/idempotency/store';
import { createLogger } from '../../src/logger';
import { GatewayMetrics } from '../../src/observability/metrics';
import { openRedisConnection, type RedisConnection } from '../../src/redis/connection';
import type { UpstreamCallRecord } from '../../src/upstreams/http';
import { eventually, sleep } from '../support/gatewayProcess';
import { startRedisGroup, type RedisGroup } from '../support/redisGroup';
import { describeWithRedis } from '../support/redisServer';

const MUTATION = { query: 'mutation Book { createReservation(input: {}) { reservation { id } } }', operationName: 'Book' };
const sentCall: UpstreamCallRecord = { service: 'reservation', method: 'POST', route: '/v1/reservations', status: 201, durationMs: 1, sent: true, source: 'upstream' };
const FINGERPRINT = requestFingerprint({ documentText: MUTATION.query, operationName: MUTATION.operationName, variables: {} });
const ok = (): GraphqlResponse => ({ status: 200, headers: new Map([['content-type', 'application/json']]), body: '{"data":{"createReservation":{}}}' });
const codeOf = (res: GraphqlResponse) => (JSON.parse(res.body.toString()) as { errors?: Array<{ extensions?: { code?: string } }> }).errors?.[0]?.extensions?.code;

let requests = 0;
function keyedRequest(key: string): GraphqlRequest {
  const headers: Record<string, string> = { 'idempotency-key': key, 'x-venue-token': 'venue-a' };
  return {
    method: 'POST',
    url: new URL('http://gateway.invalid/graphql'),
    header: (name) => headers[name],
    incomingHeaders: {},
    read: operationsOfBody(MUTATION),
    record: createRequestRecord(`durability-${++requests}`),
    context: () => Promise.reject(new Error('no context: next() stands in for execution here')),
  };
}

/**
 * As the transport does (src/upstreams/http.ts): awaits the request's hook before a write, then writes. A refused
 * hook stops the write, and the resolver's error is the answer.
 */
async function upstreamWrite(request: GraphqlRequest): Promise<GraphqlResponse> {
  try {
    await request.record.beforeUpstreamWrite?.();
  } catch {
    return { status: 200, headers: new Map([['content-type', 'application/json']]), body: '{"errors":[{"message":"stopped","extensions":{"code":"INTERNAL_SERVER_ERROR"}}]}' };
  }
  request.record.upstreamCalls.push(sentCall);
  return ok();
}

const withRedis = describeWithRedis('the idempotency durability tests');

/** The idempotency step over the Redis store, against a real primary and its replica, the replica stalled or not. */
withRedis('idempotencyStep with a replicated Redis', () => {
  let group: RedisGroup;
  let connection: RedisConnection;
  let store: RedisIdempotencyStore;
  let metrics: GatewayMetrics;
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({ level: 'info', destination: new Writable({ write: (c: Buffer, _e, done) => (lines.push(JSON.parse(c.toString())), done()) }) });
  let n = 0;
  const newKey = () => `durability-${process.pid}-${++n}`;
  /** The Redis keys of a request's scoped key: read from the record the step filled. */
  const redisKeys = (request: GraphqlRequest) => {
    const scoped = request.record.idempotency!.scopedKey!;
    return [REDIS_KEY_PREFIX + scoped, `${REDIS_KEY_PREFIX}${scoped}:sent`];
  };
  const step = (leaseMs = 5000) => idempotencyStep({ store, logger, metrics, leaseMs });
  const failures = async (reason: string) => (await metrics.registry.getSingleMetric('tablegraph_idempotency_store_failures_total')!.get()).values.find((v) => v.labels.reason === reason)?.value ?? 0;
  /** Stalls the replica (connected, never acknowledging) for the length of `during`. */
  async function replicaStalled<T>(during: () => Promise<T>): Promise<T> {
    group.replica.signal('SIGSTOP');
    try {
      return await during();
    } finally {
      group.replica.signal('SIGCONT');
    }
  }

  beforeAll(async () => {
    group = await startRedisGroup({ sentinels: 0 });
    connection = openRedisConnection({ url: `redis://:${group.password}@127.0.0.1:${group.primary.port}`, waitTimeoutMs: 100, logger });
    store = new RedisIdempotencyStore(connection);
    expect(await eventually(() => connection.durableAvailable, 10_000)).toBe(true);
    expect(await connection.countReplicas()).toBe(1);
  }, 60_000);
  beforeEach(() => {
    metrics = new GatewayMetrics({ defaultMetrics: false });
    lines.length = 0;
  });
  afterAll(async () => {
    await connection?.close();
    await group?.stop();
  });

  it('runs and stores a keyed mutation once a replica acknowledged its lease, its sent mark and its response', async () => {
    const request = keyedRequest(newKey());
    const res = await step()(request, () => upstreamWrite(request));
    expect([res.status, request.record.idempotency?.outcome]).toEqual([200, 'stored']);
    const [record, mark] = redisKeys(request);
    expect(await group.replica.client().exists(record, mark)).toBe(1);
  });

  it('refuses a keyed mutation with 503 and Retry-After before any upstream call when no replica acknowledges its lease, and frees the key', async () => {
    const key = newKey();
    const request = keyedRequest(key);
    const next = jest.fn(() => upstreamWrite(request));
    const res = await replicaStalled(() => step()(request, next));
    expect([res.status, codeOf(res), res.headers.get('retry-after')]).toEqual([503, 'IDEMPOTENCY_UNAVAILABLE', '1']);
    expect(next).not.toHaveBeenCalled();
    expect(await group.primary.client().exists(...redisKeys(request))).toBe(0);
    const retry = keyedRequest(key);
    expect((await step()(retry, () => upstreamWrite(retry))).status).toBe(200);
  });

  it('stops the mutation before its first byte when its sent mark is not acknowledged: 503, nothing sent, the key free', async () => {
    const key = newKey();
    const request = keyedRequest(key);
    const res = await step()(request, () => replicaStalled(() => upstreamWrite(request)));
    expect([res.status, codeOf(res), res.headers.get('retry-after')]).toEqual([503, 'IDEMPOTENCY_UNAVAILABLE', '1']);
    expect(request.record.upstreamCalls).toHaveLength(0);
    expect(await group.primary.client().exists(...redisKeys(request))).toBe(0);
    expect(lines.some((l) => l.msg === 'idempotency key could not be marked sent durably: keyed mutation refused before any upstream call')).toBe(true);
  });

  it('still answers when the stored response is not acknowledged, and the log and a metric say it is not durable', async () => {
    const request = keyedRequest(newKey());
    const res = await step()(request, async () => {
      const answer = await upstreamWrite(request);
      group.replica.signal('SIGSTOP');
      return answer;
    }).finally(() => group.replica.signal('SIGCONT'));
    expect([res.status, res.body]).toEqual([200, ok().body]);
    expect(request.record.idempotency?.outcome).toBe('not_durable');
    expect(lines.find((l) => l.reason === 'not_durable')).toMatchObject({ level: 50, msg: expect.stringMatching(/^idempotency response not stored durably/) });
    expect(await failures('not_durable')).toBe(1);
  });

  it('renews the lease while a slow mutation runs, so a repeat is told it is running, not run again', async () => {
    const key = newKey();
    const first = keyedRequest(key);
    let repeat: GraphqlResponse | undefined;
    const res = await step(300)(first, async () => {
      const answer = await upstreamWrite(first);
      // Past three leases: without renewal the key would have been free again.
      await sleep(1000);
      const again = keyedRequest(key);
      repeat = await step(300)(again, () => upstreamWrite(again));
      return answer;
    });
    expect(res.status).toBe(200);
    expect([repeat?.status, repeat && codeOf(repeat)]).toEqual([409, 'IDEMPOTENCY_KEY_IN_USE']);
  });

  it('logs and counts a completion whose lease is gone, never a silent stored', async () => {
    const key = newKey();
    const request = keyedRequest(key);
    const res = await step()(request, async () => {
      const answer = await upstreamWrite(request);
      // The lease lapsed and another request took the key meanwhile.
      const [record, mark] = redisKeys(request);
      await group.primary.client().del(record, mark);
      expect((await store.take(request.record.idempotency!.scopedKey!, 'another', 5000)).state).toBe('taken');
      return answer;
    });
    expect(res.status).toBe(200);
    expect(request.record.idempotency?.outcome).toBe('store_failed');
    expect(lines.find((l) => l.reason === 'lease_lost')).toMatchObject({ level: 50, msg: expect.stringMatching(/^idempotency response not stored: the key's lease was gone/) });
    expect(await failures('lease_lost')).toBe(1);
  });

  it('answers 409 IDEMPOTENCY_OUTCOME_UNKNOWN for a key sent upstream whose answer was never stored, once its lease lapsed', async () => {
    const key = newKey();
    // A request that reaches no upstream leaves the key free; its record names the scoped key.
    const probe = keyedRequest(key);
    await step()(probe, () => Promise.resolve(ok()));
    const scoped = probe.record.idempotency!.scopedKey!;
    // A replica took the key and marked it sent, then died: nothing renews its lease, which lapses.
    const taken = await store.take(scoped, FINGERPRINT, 60_000);
    if (taken.state !== 'taken') throw new Error('expected the key to be free');
    expect(await store.markSent(scoped, taken.lease, 60)).toBe('recorded');
    await group.primary.client().pexpire(REDIS_KEY_PREFIX + scoped, 1);
    await sleep(20);
    const retry = keyedRequest(key);
    const next = jest.fn(() => upstreamWrite(retry));
    const res = await step()(retry, next);
    expect([res.status, codeOf(res)]).toEqual([409, 'IDEMPOTENCY_OUTCOME_UNKNOWN']);
    expect(next).not.toHaveBeenCalled();
    expect(lines.some((l) => l.level === 40 && String(l.msg).startsWith('idempotency outcome unknown'))).toBe(true);
    expect((await metrics.registry.getSingleMetric('tablegraph_idempotency_requests_total')!.get()).values.find((v) => v.labels.outcome === 'outcome_unknown')?.value).toBe(1);
  });

  it('frees a key whose lease lapsed before anything was sent upstream', async () => {
    const key = newKey();
    const probe = keyedRequest(key);
    await step()(probe, () => Promise.resolve(ok()));
    const scoped = probe.record.idempotency!.scopedKey!;
    const taken = await store.take(scoped, FINGERPRINT, 60_000);
    expect(taken.state).toBe('taken');
    await group.primary.client().pexpire(REDIS_KEY_PREFIX + scoped, 1);
    await sleep(20);
    const retry = keyedRequest(key);
    const res = await step()(retry, () => upstreamWrite(retry));
    expect([res.status, retry.record.idempotency?.outcome]).toEqual([200, 'stored']);
  });
});

