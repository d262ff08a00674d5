import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/logger';
import { GatewayMetrics } from '../../src/observability/metrics';
import { createGateway, type Gateway } from '../../src/server';
import { sha256Hex } from '../../src/sha256';
import { SharedReads, requestMaxAgeSeconds, type ReadKey, type ReadSource } from '../../src/upstreams/sharedReads';
import type { Answer } from '../../src/upstreams/transport';
import { checkRecord, reservationRecord } from '../support/fixtures';
import { eventually } from '../support/gatewayProcess';
import { sendJson, startScriptedServer, type ScriptedServer } from '../support/upstreamServer';
import { CallAbort, type AbortListener, type CallSignal } from '../../src/upstreams/callSignal';

const FAILING_ID = randomUUID();
const MISSING_ID = randomUUID();
const RESERVATION_ID = randomUUID();
// Both venues' screens are one partner client of the clients file.
const VENUE_A = { 'pos-access-token': 'pos-token-venue-a', 'reservation-access-token': 'res-token-venue-a', 'x-api-key': 'screens-key' };
const VENUE_B = { 'pos-access-token': 'pos-token-venue-b', 'reservation-access-token': 'res-token-venue-b', 'x-api-key': 'screens-key' };

const CHECK = (id: string) => `{ check(id: "${id}") { id } }`;
const RESERVATION = `{ reservation(id: "${RESERVATION_ID}") { id guestCount } }`;
const BOOK = `mutation { createReservation(input: { revenueCenterId: "${randomUUID()}", date: "2099-12-24T19:30", guestCount: 2, customer: { firstName: "Ada" } }) { reservation { id } } }`;

interface Reply {
  status: number;
  age: string | null;
  body: { data?: Record<string, unknown> | null; errors?: Array<{ extensions?: { code?: string } }> };
  remaining: Record<string, number>;
}

/** One upstream for both services: checks and reservations by id, bookings; a check GET may be held until released. */
async function startUpstream(): Promise<{ server: ScriptedServer; hold(): () => void; gets(path: string): number }> {
  let gate: Promise<void> | undefined;
  const server = await startScriptedServer((req, res) => {
    const url = req.url ?? '';
    if (req.method === 'POST') return sendJson(res, 201, { reservation: reservationRecord({ id: randomUUID(), check: null }) });
    if (url === `/checks/${FAILING_ID}`) return sendJson(res, 503, { errors: [{ message: 'busy' }] });
    if (url === `/checks/${MISSING_ID}`) return sendJson(res, 404, { errors: [{ message: 'no such check' }] });
    if (url.startsWith('/checks/')) {
      const answer = () => sendJson(res, 200, checkRecord({ id: url.slice('/checks/'.length) }));
      return gate ? void gate.then(answer) : answer();
    }
    if (url.startsWith('/v1/reservations/')) return sendJson(res, 200, { reservation: reservationRecord({ id: RESERVATION_ID, check: null }) });
    sendJson(res, 404, { errors: [{ message: 'not found' }] });
  });
  return {
    server,
    hold() {
      let release!: () => void;
      gate = new Promise<void>((resolve) => (release = resolve));
      return () => {
        gate = undefined;
        release();
      };
    },
    gets: (path) => server.requests.filter((r) => r.method === 'GET' && r.url === path).length,
  };
}

describe('shared upstream reads, over real HTTP', () => {
  let upstream: Awaited<ReturnType<typeof startUpstream>>;
  let gateway: Gateway;
  let url: string;
  let metrics: GatewayMetrics;
  let reads: SharedReads;
  const logs: string[] = [];
  let now = 1_000_000;
  /** Reads decided so far (kept, joined or called), by source. */
  const decided: ReadSource[] = [];

  async function ask(query: string, headers: Record<string, string> = VENUE_A): Promise<Reply> {
    const res = await fetch(`${url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query }) });
    const remaining = Object.fromEntries(
      (res.headers.get('ratelimit') ?? '')
        .split(',')
        .filter(Boolean)
        .map((m) => [/"([^"]+)"/.exec(m)![1], Number(/;r=(\d+)/.exec(m)![1])]),
    );
    return { status: res.status, age: res.headers.get('age'), body: (await res.json()) as Reply['body'], remaining };
  }

  function logLine(requestId: string): { upstreamCalls: Array<{ source: string; route: string }> } {
    const line = logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.requestId === requestId && l.msg === 'graphql request');
    if (!line) throw new Error(`no log line for ${requestId}`);
    return line as unknown as { upstreamCalls: Array<{ source: string; route: string }> };
  }

  beforeAll(async () => {
    upstream = await startUpstream();
    const dir = mkdtempSync(join(tmpdir(), 'tablegraph-reads-'));
    const clientsFile = join(dir, 'clients.json');
    writeFileSync(clientsFile, JSON.stringify({ clients: [{ name: 'screens', audience: 'partner', keySha256: sha256Hex('screens-key'), policy: { requestsPerSecond: 100, burst: 1000, upstreamCallsPerMinute: 1000 } }] }));
    const config = loadConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      RESERVATION_BASE_URL: upstream.server.url,
      POS_BASE_URL: upstream.server.url,
      UPSTREAM_RETRIES: '0',
      CLIENTS_FILE: clientsFile,
    });
    metrics = new GatewayMetrics({ defaultMetrics: false });
    reads = new SharedReads({
      maxAgeSeconds: 30,
      maxBytes: 1024 * 1024,
      now: () => now,
      onRead: (key, source) => {
        decided.push(source);
        metrics.countRead(key.service, key.route, source);
      },
    });
    const destination = new Writable({
      write(chunk: Buffer, _enc, done) {
        logs.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        done();
      },
    });
    gateway = createGateway({ config, logger: createLogger({ level: 'info', destination }), metrics, sharedReads: reads });
    await gateway.start();
    await new Promise<void>((resolve) => gateway.server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(gateway.server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await gateway?.stop();
    await upstream?.server.close();
  });

  beforeEach(() => {
    // Each test starts with nothing kept: the clock moves past every max-age a test could have used.
    now += 60 * 60 * 1000;
    decided.length = 0;
  });

  it('makes one upstream call for 20 concurrent identical reads, each logged with its source', async () => {
    const id = randomUUID();
    const release = upstream.hold();
    const replies = Array.from({ length: 20 }, (_, i) => ask(CHECK(id), { ...VENUE_A, 'x-request-id': `join-${i}` }));
    // Every request has joined (or started) the one read before the upstream answers.
    expect(await eventually(() => decided.length === 20)).toBe(true);
    release();
    const answers = await Promise.all(replies);
    expect(answers.map((a) => a.body.data?.check)).toEqual(Array.from({ length: 20 }, () => ({ id })));
    expect(upstream.gets(`/checks/${id}`)).toBe(1);
    const sources = Array.from({ length: 20 }, (_, i) => logLine(`join-${i}`).upstreamCalls.map((c) => c.source)).flat();
    expect(sources.sort()).toEqual(['upstream', ...Array.from({ length: 19 }, () => 'joined')].sort());
    expect(answers.every((a) => a.age === null)).toBe(true);
    const text = (await metrics.render()).text;
    expect(text).toContain('tablegraph_upstream_reads_total{service="pos",route="/checks/:id",source="joined"} 19');
    expect(text).toContain('tablegraph_upstream_calls_total{service="pos",method="GET",route="/checks/:id",status="200",outcome="success"}');
  });

  it('never shares a read between two tenants', async () => {
    const id = randomUUID();
    const release = upstream.hold();
    const replies = [ask(CHECK(id), VENUE_A), ask(CHECK(id), VENUE_B), ask(CHECK(id), VENUE_A), ask(CHECK(id), VENUE_B)];
    expect(await eventually(() => decided.length === 4)).toBe(true);
    release();
    await Promise.all(replies);
    const tokens = upstream.server.requests.filter((r) => r.url === `/checks/${id}`).map((r) => r.headers['pos-access-token']);
    expect(tokens.sort()).toEqual(['pos-token-venue-a', 'pos-token-venue-b']);
    // A kept answer of one tenant is not another's either.
    const kept = await ask(CHECK(id), { ...VENUE_A, 'cache-control': 'max-age=10' });
    const other = await ask(CHECK(id), { ...VENUE_B, 'pos-access-token': 'pos-token-venue-c', 'cache-control': 'max-age=10' });
    expect([kept.age, other.age]).toEqual(['0', null]);
    expect(upstream.gets(`/checks/${id}`)).toBe(3);
  });

  it('answers from a kept answer no older than max-age, with Age, and reads again past it', async () => {
    const id = randomUUID();
    const first = await ask(CHECK(id), { ...VENUE_A, 'cache-control': 'max-age=10' });
    expect(first.age).toBeNull();
    now += 3_500;
    const kept = await ask(CHECK(id), { ...VENUE_A, 'cache-control': 'max-age=10', 'x-request-id': 'kept-1' });
    expect(kept).toMatchObject({ status: 200, age: '3', body: { data: { check: { id } } } });
    expect(logLine('kept-1').upstreamCalls).toEqual([expect.objectContaining({ source: 'cache', route: '/checks/:id' })]);
    // Without the header, or with no-cache, nothing kept is used.
    expect((await ask(CHECK(id))).age).toBeNull();
    expect((await ask(CHECK(id), { ...VENUE_A, 'cache-control': 'no-cache, max-age=10' })).age).toBeNull();
    expect(upstream.gets(`/checks/${id}`)).toBe(3);
    // The last read (now) is kept; 10.5 s later it is too old for max-age=10.
    now += 10_500;
    expect((await ask(CHECK(id), { ...VENUE_A, 'cache-control': 'max-age=10' })).age).toBeNull();
    expect(upstream.gets(`/checks/${id}`)).toBe(4);
    expect((await metrics.render()).text).toMatch(/tablegraph_upstream_reads_total\{service="pos",route="\/checks\/:id",source="cache"\} [1-9]/);
  });

  it('caps max-age at UPSTREAM_CACHE_MAX_AGE_SECONDS', async () => {
    const id = randomUUID();
    await ask(CHECK(id), { ...VENUE_A, 'cache-control': 'max-age=3600' });
    now += 29_000;
    expect((await ask(CHECK(id), { ...VENUE_A, 'cache-control': 'max-age=3600' })).age).toBe('29');
    now += 2_000;
    expect((await ask(CHECK(id), { ...VENUE_A, 'cache-control': 'max-age=3600' })).age).toBeNull();
    expect(upstream.gets(`/checks/${id}`)).toBe(2);
  });

  it('keeps no error answer', async () => {
    for (const id of [FAILING_ID, MISSING_ID]) {
      const before = upstream.gets(`/checks/${id}`);
      const first = await ask(CHECK(id), { ...VENUE_A, 'cache-control': 'max-age=30' });
      const second = await ask(CHECK(id), { ...VENUE_A, 'cache-control': 'max-age=30' });
      expect([first.body.errors?.[0]?.extensions?.code, second.body.errors?.[0]?.extensions?.code]).toEqual(
        id === FAILING_ID ? ['UPSTREAM_ERROR', 'UPSTREAM_ERROR'] : ['NOT_FOUND', 'NOT_FOUND'],
      );
      expect(second.age).toBeNull();
      expect(upstream.gets(`/checks/${id}`) - before).toBe(2);
    }
  });

  it("drops a service's kept answers for the writer's credentials before the write is answered", async () => {
    const cached = { ...VENUE_A, 'cache-control': 'max-age=30' };
    await ask(RESERVATION, cached);
    await ask(RESERVATION, { ...VENUE_B, 'cache-control': 'max-age=30' });
    expect((await ask(RESERVATION, cached)).age).toBe('0');
    const booked = await ask(BOOK, VENUE_A);
    expect(booked.body.errors).toBeUndefined();
    // The writer reads its write; the other venue's kept answer stays.
    expect((await ask(RESERVATION, cached)).age).toBeNull();
    expect((await ask(RESERVATION, { ...VENUE_B, 'cache-control': 'max-age=30' })).age).toBe('0');
  });

  it("charges a client's upstream-call budget with real calls only", async () => {
    const id = randomUUID();
    const partner = { ...VENUE_A, 'cache-control': 'max-age=30' };
    const first = await ask(CHECK(id), partner);
    const kept = await ask(CHECK(id), partner);
    expect(kept.age).toBe('0');
    expect(kept.remaining['upstream-calls']).toBe(first.remaining['upstream-calls']);
    const fresh = await ask(CHECK(id), { ...partner, 'cache-control': 'no-cache' });
    expect(fresh.remaining['upstream-calls']).toBe(first.remaining['upstream-calls'] - 1);
  });
});

describe('SharedReads', () => {
  const key = (target: string, hash = 'a'.repeat(64)): ReadKey => ({ service: 'pos', route: '/checks/:id', target, credentialHash: hash });
  const ok = (text: string): Answer => ({ status: 200, headers: {}, text, bytes: Buffer.byteLength(text) });

  /** A fetch that resolves when told, and says whether its signal aborted. */
  function pending(): { fetch: (signal: CallSignal) => Promise<Answer>; resolve(answer: Answer): void; calls: number; aborted(): boolean } {
    let resolve!: (answer: Answer) => void;
    let signal: CallSignal | undefined;
    const handle = {
      calls: 0,
      fetch: (s: CallSignal) => {
        handle.calls += 1;
        signal = s;
        return new Promise<Answer>((r) => (resolve = r));
      },
      resolve: (answer: Answer) => resolve(answer),
      aborted: () => signal?.aborted ?? false,
    };
    return handle;
  }

  it("lets a joiner whose own signal aborts stop waiting, without aborting the call for the others", async () => {
    const reads = new SharedReads({ maxAgeSeconds: 0, maxBytes: 0 });
    const call = pending();
    const first = reads.read(key('/checks/1'), call.fetch, { maxAgeMs: 0 });
    const own = new AbortController();
    const joiner = reads.read(key('/checks/1'), call.fetch, { maxAgeMs: 0, signal: own.signal });
    expect([first.source, joiner.source, call.calls]).toEqual(['upstream', 'joined', 1]);
    own.abort();
    await expect(joiner.answer).rejects.toMatchObject({ failure: 'timeout', deadlineExceeded: true });
    expect(call.aborted()).toBe(false);
    call.resolve(ok('{"id":"1"}'));
    await expect(first.answer).resolves.toMatchObject({ text: '{"id":"1"}' });
  });

  /** A request's deadline that shows what still listens on it. */
  class ObservedAbort extends CallAbort {
    readonly listening = new Set<AbortListener>();
    override addEventListener(type: 'abort', listener: AbortListener): void {
      this.listening.add(listener);
      super.addEventListener(type, listener);
    }
    override removeEventListener(type: 'abort', listener: AbortListener): void {
      this.listening.delete(listener);
      super.removeEventListener(type, listener);
    }
  }

  it("leaves nothing listening on a request's deadline once its reads settle, are cut by it, or are abandoned", async () => {
    const reads = new SharedReads({ maxAgeSeconds: 0, maxBytes: 0 });
    // One request reading two keys, and the same key twice (it joins itself), on one deadline.
    const request = new ObservedAbort();
    const [one, two] = [pending(), pending()];
    const answers = [
      reads.read(key('/checks/1'), one.fetch, { maxAgeMs: 0, signal: request }),
      reads.read(key('/checks/1'), one.fetch, { maxAgeMs: 0, signal: request }),
      reads.read(key('/checks/2'), two.fetch, { maxAgeMs: 0, signal: request }),
    ].map((read) => read.answer);
    expect([one.calls, two.calls, request.listening.size]).toEqual([1, 1, 3]);
    one.resolve(ok('{"id":"1"}'));
    two.resolve(ok('{"id":"2"}'));
    await expect(Promise.all(answers)).resolves.toHaveLength(3);
    expect(request.listening.size).toBe(0);

    // Cut by its deadline while another request still waits: it leaves, the call goes on.
    const call = pending();
    const other = reads.read(key('/checks/3'), call.fetch, { maxAgeMs: 0 });
    const cut = new ObservedAbort();
    const joined = reads.read(key('/checks/3'), call.fetch, { maxAgeMs: 0, signal: cut });
    cut.abort(new Error('deadline'));
    await expect(joined.answer).rejects.toMatchObject({ deadlineExceeded: true });
    expect([cut.listening.size, call.aborted()]).toEqual([0, false]);
    call.resolve(ok('{"id":"3"}'));
    await other.answer;

    // The only request waiting is cut: the call is abandoned, and its own abort has no listener left either.
    const alone = pending();
    const only = new ObservedAbort();
    const read = reads.read(key('/checks/4'), alone.fetch, { maxAgeMs: 0, signal: only });
    only.abort(new Error('deadline'));
    await expect(read.answer).rejects.toMatchObject({ deadlineExceeded: true });
    expect([only.listening.size, alone.aborted()]).toEqual([0, true]);
  });

  it('aborts the call once no request waits for it, and the next request calls again', async () => {
    const reads = new SharedReads({ maxAgeSeconds: 0, maxBytes: 0 });
    const call = pending();
    const own = new AbortController();
    const only = reads.read(key('/checks/1'), call.fetch, { maxAgeMs: 0, signal: own.signal });
    own.abort();
    await expect(only.answer).rejects.toMatchObject({ deadlineExceeded: true });
    expect(call.aborted()).toBe(true);
    const next = pending();
    expect(reads.read(key('/checks/1'), next.fetch, { maxAgeMs: 0 }).source).toBe('upstream');
    expect(next.calls).toBe(1);
  });

  it('lets no later request join or keep a read in flight when a write of its scope finishes', async () => {
    const reads = new SharedReads({ maxAgeSeconds: 30, maxBytes: 1 << 20 });
    const before = pending();
    const started = reads.read(key('/checks/1'), before.fetch, { maxAgeMs: 0 });
    reads.mark('pos', 'a'.repeat(64));
    const after = pending();
    const later = reads.read(key('/checks/1'), after.fetch, { maxAgeMs: 0 });
    expect([started.source, later.source, after.calls]).toEqual(['upstream', 'upstream', 1]);
    before.resolve(ok('old'));
    await started.answer;
    // The read that started before the write is not kept; the one after it is.
    expect(reads.read(key('/checks/1'), pending().fetch, { maxAgeMs: 30_000 }).source).toBe('joined');
    after.resolve(ok('new'));
    await later.answer;
    const kept = reads.read(key('/checks/1'), pending().fetch, { maxAgeMs: 30_000 });
    expect(kept.source).toBe('cache');
    await expect(kept.answer).resolves.toMatchObject({ text: 'new' });
  });

  it('keeps at most its bytes, the least recently used out first', async () => {
    const reads = new SharedReads({ maxAgeSeconds: 30, maxBytes: 3 * 1400 });
    const body = 'x'.repeat(1000);
    for (const n of [1, 2, 3]) await reads.read(key(`/checks/${n}`), () => Promise.resolve(ok(body)), { maxAgeMs: 0 }).answer;
    // /checks/1 used again: /checks/2 is now the least recently used.
    expect(reads.read(key('/checks/1'), pending().fetch, { maxAgeMs: 30_000 }).source).toBe('cache');
    await reads.read(key('/checks/4'), () => Promise.resolve(ok(body)), { maxAgeMs: 0 }).answer;
    const sources = [1, 2, 3, 4].map((n) => reads.read(key(`/checks/${n}`), () => Promise.resolve(ok(body)), { maxAgeMs: 30_000 }).source);
    expect(sources).toEqual(['cache', 'upstream', 'cache', 'cache']);
    expect(reads.keptBytes).toBeLessThanOrEqual(3 * 1400);
  });
});

describe('requestMaxAgeSeconds', () => {
  it.each([
    [undefined, 0],
    ['max-age=5', 5],
    ['MAX-AGE=5', 5],
    [' max-age = 5 ', 5],
    ['max-age="7"', 7],
    ['public, max-age=12', 12],
    ['max-age=5, no-cache', 0],
    ['no-store, max-age=5', 0],
    ['max-age=9, max-age=4', 4],
    ['max-age=-1', 0],
    ['max-age=1.5', 0],
    ['max-age=', 0],
    ['max-age', 0],
    ['max-stale=10', 0],
    ['max-age=99999999999999999999', Number.MAX_SAFE_INTEGER],
  ])('reads %p as %p seconds', (header, seconds) => {
    expect(requestMaxAgeSeconds(header)).toBe(seconds);
  });
});
