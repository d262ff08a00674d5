import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { loadConfig } from '../../src/config';
import { UpstreamError } from '../../src/errors/UpstreamError';
import { createUpstreams } from '../../src/upstreams';
import { Check } from '../../src/upstreams/pos/dto';
import { ReservationEnvelope } from '../../src/upstreams/reservation/dto';
import { retryAfterMs } from '../../src/upstreams/answer';
import { CallAbort } from '../../src/upstreams/callSignal';
import { UpstreamHttp, type UpstreamRequest } from '../../src/upstreams/http';
import { UpstreamResilience, type CircuitStateName, type ResilienceOptions } from '../../src/upstreams/resilience';
import { refusedUrl, startFaultyUpstream, type FaultMode, type FaultyUpstream } from '../support/faultyUpstream';
import { failureOf } from '../support/failures';
import { eventually } from '../support/gatewayProcess';

type Resilience = Omit<ResilienceOptions, 'service'>;

/** Generous budgets that stay out of the way unless a test narrows one. */
function resilience(overrides: { retry?: Partial<Resilience['retry']>; breaker?: Partial<Resilience['breaker']>; bulkhead?: Partial<Resilience['bulkhead']> } = {}, hooks: Partial<Resilience> = {}): Resilience {
  return {
    retry: { maxRetries: 2, baseDelayMs: 10, maxDelayMs: 50, maxRetryAfterMs: 2000, budgetRatio: 0.1, budgetMinPerSecond: 100, ...overrides.retry },
    breaker: { consecutiveFailures: 0, failureRatio: 0.99, windowMs: 60_000, minimumCalls: 100, halfOpenAfterMs: 200, halfOpenProbes: 1, ...overrides.breaker },
    bulkhead: { maxConcurrent: 16, maxQueued: 16, ...overrides.bulkhead },
    random: () => 0.5,
    ...hooks,
  };
}

const upstreams: FaultyUpstream[] = [];
const transports: UpstreamHttp[] = [];

async function faulty(mode: FaultMode = 'ok'): Promise<FaultyUpstream> {
  const upstream = await startFaultyUpstream(mode);
  upstreams.push(upstream);
  return upstream;
}

function transport(baseUrl: string, options: Resilience = resilience(), headersTimeoutMs = 1000): UpstreamHttp {
  const http = new UpstreamHttp({
    service: 'pos',
    baseUrl,
    connectTimeoutMs: 500,
    headersTimeoutMs,
    bodyTimeoutMs: headersTimeoutMs,
    connections: 8,
    maxResponseBytes: 1024 * 1024,
    resilience: options,
  });
  transports.push(http);
  return http;
}

const checkPath = `/checks/${randomUUID()}`;
const getCheck = (extra: Partial<UpstreamRequest<unknown>> = {}): UpstreamRequest<unknown> => ({
  method: 'GET',
  route: '/checks/:id',
  path: checkPath,
  headers: {},
  response: Check,
  ...extra,
});
const postReservation: UpstreamRequest<unknown> = {
  method: 'POST',
  route: '/v1/reservations',
  path: '/v1/reservations',
  headers: {},
  body: { reservation: { guest_count: 2 } },
  response: ReservationEnvelope,
};
const patchPayment: UpstreamRequest<unknown> = {
  method: 'PATCH',
  route: '/v1/reservation-payments',
  path: '/v1/reservation-payments',
  headers: {},
  body: { id: randomUUID(), amount: 10 },
  response: z.unknown(),
};


/** Each call on its own line of failures, so a test can run a sequence and look at what happened. */
async function settle(promise: Promise<unknown>): Promise<'ok' | UpstreamError> {
  try {
    await promise;
    return 'ok';
  } catch (err) {
    if (err instanceof UpstreamError) return err;
    throw err;
  }
}

/** The breaker's and the retry budget's clock: a test moves it on instead of waiting. */
function fakeClock() {
  let now = 1_000_000;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

afterEach(async () => {
  await Promise.all(transports.splice(0).map((t) => t.close()));
  await Promise.all(upstreams.splice(0).map((u) => u.close()));
});

describe('UpstreamResilience', () => {
  describe('retries', () => {
    it.each<{ what: string; mode: FaultMode; expected: Partial<UpstreamError> }>([
      { what: 'a 503', mode: 'status503', expected: { failure: 'status', status: 503 } },
      { what: 'a headers timeout', mode: 'hang', expected: { failure: 'timeout', deadlineExceeded: false } },
      { what: 'a reset connection', mode: 'reset', expected: { failure: 'unavailable', connectionFailed: true } },
    ])('retries a GET at most twice on $what, then fails with that failure', async ({ mode, expected }) => {
      const upstream = await faulty(mode);
      const err = await failureOf(transport(upstream.url, resilience(), 150).call(getCheck()));
      expect(err).toMatchObject(expected);
      expect(upstream.count('GET', checkPath)).toBe(3);
    });

    it('retries a refused connection as unavailable', async () => {
      const retries: number[] = [];
      const http = transport(await refusedUrl(), resilience({}, { onRetry: (_s, attempt) => retries.push(attempt) }));
      const err = await failureOf(http.call(getCheck()));
      expect(err).toMatchObject({ failure: 'unavailable', connectionFailed: true });
      expect(retries).toEqual([1, 2]);
    });

    it('succeeds when a retry succeeds', async () => {
      const upstream = await faulty('ok');
      upstream.queue('status503', 'reset');
      const value = (await transport(upstream.url).call(getCheck())) as { id: string };
      expect(value.id).toBe(checkPath.split('/')[2]);
      expect(upstream.requests.map((r) => r.mode)).toEqual(['status503', 'reset', 'ok']);
    });

    it.each<{ method: string; request: UpstreamRequest<unknown>; mode: FaultMode }>([
      { method: 'POST', request: postReservation, mode: 'status503' },
      { method: 'POST', request: postReservation, mode: 'reset' },
      { method: 'PATCH', request: patchPayment, mode: 'status503' },
      { method: 'PATCH', request: patchPayment, mode: 'reset' },
    ])('never retries a $method ($mode)', async ({ method, request, mode }) => {
      const upstream = await faulty(mode);
      await failureOf(transport(upstream.url).call(request));
      expect(upstream.count(method)).toBe(1);
      expect(upstream.requests).toHaveLength(1);
    });

    it('never retries a POST or a PATCH that timed out', async () => {
      const upstream = await faulty('hang');
      const http = transport(upstream.url, resilience(), 150);
      const [post, patch] = await Promise.all([failureOf(http.call(postReservation)), failureOf(http.call(patchPayment))]);
      expect(post.failure).toBe('timeout');
      expect(patch.failure).toBe('timeout');
      expect(upstream.count('POST')).toBe(1);
      expect(upstream.count('PATCH')).toBe(1);
      expect(upstream.requests).toHaveLength(2);
    });

    it.each<FaultMode>(['status400', 'status404'])('does not retry a GET answered with %s', async (mode) => {
      const upstream = await faulty(mode);
      const err = await failureOf(transport(upstream.url).call(getCheck()));
      expect(err.failure).toBe('status');
      expect(upstream.requests).toHaveLength(1);
    });

    it.each<FaultMode>(['status500', 'nonJson', 'wrongShape', 'unusable', 'redirect'])('does not retry a GET answered with %s', async (mode) => {
      const upstream = await faulty(mode);
      await failureOf(transport(upstream.url).call(getCheck()));
      expect(upstream.requests).toHaveLength(1);
    });

    it('waits for Retry-After before retrying', async () => {
      const upstream = await faulty('status503RetryAfter');
      const delays: number[] = [];
      const http = transport(upstream.url, resilience({ retry: { maxRetries: 1 } }, { onRetry: (_s, _a, delay) => delays.push(delay) }));
      const err = await failureOf(http.call(getCheck()));
      expect(err).toMatchObject({ failure: 'status', status: 503, retryAfterMs: 1000 });
      expect(upstream.requests).toHaveLength(2);
      expect(upstream.requests[1].at - upstream.requests[0].at).toBeGreaterThanOrEqual(900);
      expect(delays).toEqual([1000]);
    });

    it('does not retry when Retry-After is longer than maxRetryAfterMs', async () => {
      const upstream = await faulty('status503RetryAfter');
      const started = performance.now();
      const err = await failureOf(transport(upstream.url, resilience({ retry: { maxRetryAfterMs: 500 } })).call(getCheck()));
      expect(err).toMatchObject({ failure: 'status', status: 503 });
      expect(upstream.requests).toHaveLength(1);
      expect(performance.now() - started).toBeLessThan(500);
    });

    it('does not retry when Retry-After would end past the deadline', async () => {
      const upstream = await faulty('status503RetryAfter');
      const deadline = Date.now() + 600;
      const err = await failureOf(transport(upstream.url).call(getCheck({ deadline, signal: AbortSignal.timeout(600) })));
      expect(err).toMatchObject({ failure: 'status', status: 503 });
      expect(upstream.requests).toHaveLength(1);
    });

    it('stops retrying at the request deadline', async () => {
      const upstream = await faulty('hang');
      const headersTimeoutMs = 250;
      const started = performance.now();
      const deadline = Date.now() + 300;
      const err = await failureOf(transport(upstream.url, resilience(), headersTimeoutMs).call(getCheck({ deadline, signal: AbortSignal.timeout(300) })));
      const elapsed = performance.now() - started;
      expect(err).toMatchObject({ failure: 'timeout', deadlineExceeded: true });
      expect(elapsed).toBeLessThan(3 * headersTimeoutMs - 100);
      expect(upstream.requests.length).toBeLessThanOrEqual(2);
    });

    it('fails at once when the request signal has already aborted', async () => {
      const upstream = await faulty('ok');
      const signal = AbortSignal.abort();
      const err = await failureOf(transport(upstream.url).call(getCheck({ signal, deadline: Date.now() })));
      expect(err).toMatchObject({ failure: 'timeout', deadlineExceeded: true });
      expect(upstream.requests).toHaveLength(0);
    });

    it('does not retry once the retry budget is spent', async () => {
      const upstream = await faulty('status503');
      const http = transport(upstream.url, resilience({ retry: { budgetRatio: 0.1, budgetMinPerSecond: 0 } }));
      await failureOf(http.call(getCheck()));
      // One request in the window: 10 % of it is less than one retry.
      expect(upstream.requests).toHaveLength(1);
    });

    it('gets its retry budget back once the spent retries have left the window', async () => {
      const upstream = await faulty('status503');
      const clock = fakeClock();
      // Ten retries a window of 10 s (one a second), plus 10 % of the requests: five failing GETs spend them.
      const http = transport(upstream.url, resilience({ retry: { budgetRatio: 0.1, budgetMinPerSecond: 1 } }, { now: clock.now }));
      for (let i = 0; i < 5; i++) await failureOf(http.call(getCheck()));
      expect(upstream.requests).toHaveLength(15);
      await failureOf(http.call(getCheck()));
      expect(upstream.requests).toHaveLength(16);

      clock.advance(10_000);
      await failureOf(http.call(getCheck()));
      expect(upstream.requests).toHaveLength(19);
    });
  });

  describe('circuit breaker', () => {
    it('opens after consecutiveFailures failures, then fails fast without calling the upstream', async () => {
      const upstream = await faulty('status500');
      const http = transport(upstream.url, resilience({ retry: { maxRetries: 0 }, breaker: { consecutiveFailures: 3 } }));
      for (let i = 0; i < 3; i++) expect(await settle(http.call(getCheck()))).toMatchObject({ failure: 'status', status: 500 });
      expect(http.resilience?.circuitState).toBe('open');

      const started = performance.now();
      const err = await failureOf(http.call(getCheck()));
      expect(err).toMatchObject({ failure: 'unavailable', connectionFailed: false });
      expect(err.message).toContain('circuit is open');
      expect(performance.now() - started).toBeLessThan(250);
      expect(upstream.requests).toHaveLength(3);
    });

    it('lets a half-open probe through after halfOpenAfterMs and closes on its success', async () => {
      const upstream = await faulty('status500');
      const states: CircuitStateName[] = [];
      const clock = fakeClock();
      const http = transport(
        upstream.url,
        resilience({ retry: { maxRetries: 0 }, breaker: { consecutiveFailures: 2, halfOpenAfterMs: 200 } }, { onCircuitStateChange: (_s, state) => states.push(state), now: clock.now }),
      );
      await settle(http.call(getCheck()));
      await settle(http.call(getCheck()));
      expect(states).toEqual(['open']);
      upstream.mode = 'ok';
      clock.advance(199);
      expect((await failureOf(http.call(getCheck()))).failure).toBe('unavailable');
      expect(upstream.requests).toHaveLength(2);

      clock.advance(1);
      await expect(http.call(getCheck())).resolves.toBeDefined();
      expect(states).toEqual(['open', 'half-open', 'closed']);
      expect(http.resilience?.circuitState).toBe('closed');
      await expect(http.call(getCheck())).resolves.toBeDefined();
      expect(upstream.requests).toHaveLength(4);
    });

    it('reopens when the half-open probe fails', async () => {
      const upstream = await faulty('status500');
      const states: CircuitStateName[] = [];
      const clock = fakeClock();
      const http = transport(
        upstream.url,
        resilience({ retry: { maxRetries: 0 }, breaker: { consecutiveFailures: 2, halfOpenAfterMs: 200 } }, { onCircuitStateChange: (_s, state) => states.push(state), now: clock.now }),
      );
      await settle(http.call(getCheck()));
      await settle(http.call(getCheck()));
      clock.advance(200);
      expect((await failureOf(http.call(getCheck()))).status).toBe(500);
      expect(states).toEqual(['open', 'half-open', 'open']);
      expect((await failureOf(http.call(getCheck()))).failure).toBe('unavailable');
      expect(upstream.requests).toHaveLength(3);
    });

    it('counts each retry attempt as a failure', async () => {
      const upstream = await faulty('status503');
      const http = transport(upstream.url, resilience({ breaker: { consecutiveFailures: 3 } }));
      await failureOf(http.call(getCheck()));
      expect(upstream.requests).toHaveLength(3);
      expect(http.resilience?.circuitState).toBe('open');
    });

    it.each<FaultMode>(['status404', 'status400', 'wrongShape', 'nonJson', 'redirect'])('does not count %s toward opening: the service answered', async (mode) => {
      const upstream = await faulty(mode);
      const http = transport(upstream.url, resilience({ retry: { maxRetries: 0 }, breaker: { failureRatio: 0.5, minimumCalls: 2, consecutiveFailures: 2 } }));
      for (let i = 0; i < 6; i++) expect(await settle(http.call(getCheck()))).toBeInstanceOf(UpstreamError);
      expect(http.resilience?.circuitState).toBe('closed');
      expect(upstream.requests).toHaveLength(6);
    });

    it.each<FaultMode>(['status500', 'status503', 'reset', 'hang', 'slowBody'])('counts %s toward opening', async (mode) => {
      const upstream = await faulty(mode);
      const http = transport(upstream.url, resilience({ retry: { maxRetries: 0 }, breaker: { failureRatio: 0.5, minimumCalls: 2 } }), 150);
      await settle(http.call(getCheck()));
      expect(http.resilience?.circuitState).toBe('closed');
      await settle(http.call(getCheck()));
      expect(http.resilience?.circuitState).toBe('open');
    });

    it('does not open on failures in a row under the default settings', async () => {
      const upstream = await faulty('status500');
      const config = loadConfig({ NODE_ENV: 'test', RESERVATION_BASE_URL: upstream.url, POS_BASE_URL: upstream.url });
      const http = transport(upstream.url, { ...config.pos.resilience, retry: { ...config.pos.resilience.retry, maxRetries: 0 } });
      for (let i = 0; i < 20; i++) await settle(http.call(getCheck()));
      expect(http.resilience?.circuitState).toBe('closed');
      expect(upstream.requests).toHaveLength(20);
    });

    it('does not count a request that ran out of its own deadline', async () => {
      const upstream = await faulty('hang');
      const http = transport(upstream.url, resilience({ retry: { maxRetries: 0 }, breaker: { consecutiveFailures: 2 } }), 5000);
      for (let i = 0; i < 3; i++) {
        const err = await failureOf(http.call(getCheck({ deadline: Date.now() + 50, signal: AbortSignal.timeout(50) })));
        expect(err.deadlineExceeded).toBe(true);
      }
      expect(http.resilience?.circuitState).toBe('closed');
    });

    it('opens on a failure ratio above failureRatio with alternating successes and failures', async () => {
      const upstream = await faulty('ok');
      const http = transport(upstream.url, resilience({ retry: { maxRetries: 0 }, breaker: { failureRatio: 0.4, minimumCalls: 6 } }));
      const outcomes: string[] = []; // 'ok' or the failure
      for (let i = 0; i < 6; i++) {
        upstream.queue(i % 2 === 0 ? 'ok' : 'status500');
        const outcome = await settle(http.call(getCheck()));
        outcomes.push(outcome === 'ok' ? 'ok' : outcome.failure);
      }
      expect(outcomes).toEqual(['ok', 'status', 'ok', 'status', 'ok', 'status']);
      expect(http.resilience?.circuitState).toBe('open');
      expect((await failureOf(http.call(getCheck()))).failure).toBe('unavailable');
      expect(upstream.requests).toHaveLength(6);
    });

    it('stays closed with alternating successes and failures below failureRatio', async () => {
      const upstream = await faulty('ok');
      const http = transport(upstream.url, resilience({ retry: { maxRetries: 0 }, breaker: { failureRatio: 0.6, minimumCalls: 6 } }));
      for (let i = 0; i < 12; i++) {
        upstream.queue(i % 2 === 0 ? 'ok' : 'status500');
        await settle(http.call(getCheck()));
      }
      expect(http.resilience?.circuitState).toBe('closed');
      expect(upstream.requests).toHaveLength(12);
    });
  });

  describe('bulkhead', () => {
    it('sheds a call beyond maxConcurrent and maxQueued at once, and serves the queued one later', async () => {
      const upstream = await faulty('hold');
      const http = transport(upstream.url, resilience({ bulkhead: { maxConcurrent: 2, maxQueued: 1 } }));
      const admitted = [http.call(getCheck()), http.call(getCheck()), http.call(getCheck())];
      expect(await eventually(() => upstream.requests.length === 2)).toBe(true);

      const started = performance.now();
      const err = await failureOf(http.call(getCheck()));
      expect(performance.now() - started).toBeLessThan(250);
      expect(err).toMatchObject({ failure: 'unavailable', connectionFailed: false });
      expect(err.message).toContain('limit of concurrent calls');
      expect(upstream.requests).toHaveLength(2);

      upstream.release();
      await expect(Promise.all(admitted)).resolves.toHaveLength(3);
      expect(upstream.requests).toHaveLength(3);
      expect(http.resilience?.circuitState).toBe('closed');
    });

    it('fails a queued call whose deadline passed while it waited, at its turn: as the deadline, unrecorded and never sent', async () => {
      const upstream = await faulty('hold');
      const http = transport(upstream.url, resilience({ bulkhead: { maxConcurrent: 1, maxQueued: 1 } }));
      const first = http.call(getCheck());
      expect(await eventually(() => upstream.requests.length === 1)).toBe(true);
      const deadline = new CallAbort();
      const records: unknown[] = [];
      const queued = failureOf(http.call(getCheck({ signal: deadline, deadline: Date.now() + 60_000 }), { record: (call) => records.push(call) }));
      deadline.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
      upstream.release();
      await expect(first).resolves.toHaveProperty('id');
      expect(await queued).toMatchObject({ failure: 'timeout', deadlineExceeded: true });
      expect(records).toEqual([]);
      expect(upstream.requests).toHaveLength(1);
    });

    it('sheds a POST the same way', async () => {
      const upstream = await faulty('hold');
      const http = transport(upstream.url, resilience({ bulkhead: { maxConcurrent: 1, maxQueued: 0 } }));
      const first = http.call(postReservation);
      expect(await eventually(() => upstream.requests.length === 1)).toBe(true);
      expect((await failureOf(http.call(postReservation))).failure).toBe('unavailable');
      upstream.release();
      await expect(first).resolves.toHaveProperty('reservation.id');
      expect(upstream.requests).toHaveLength(1);
    });
  });

  describe('configuration', () => {
    const env = { NODE_ENV: 'test', RESERVATION_BASE_URL: 'http://127.0.0.1:1', POS_BASE_URL: 'http://127.0.0.1:2' };

    it('builds the policies from the default settings', () => {
      const config = loadConfig(env);
      const upstreams = createUpstreams(config);
      expect(upstreams.pos.resilience?.circuitState).toBe('closed');
      return Promise.all([upstreams.pos.close(), upstreams.reservation.close()]);
    });

    it.each([
      [{ BREAKER_FAILURE_RATIO: '1' }, 'BREAKER_FAILURE_RATIO'],
      [{ BREAKER_FAILURE_RATIO: '0' }, 'BREAKER_FAILURE_RATIO'],
      [{ BREAKER_WINDOW_MS: '50' }, 'BREAKER_WINDOW_MS'],
      [{ BREAKER_HALF_OPEN_PROBES: '0' }, 'BREAKER_HALF_OPEN_PROBES'],
    ])('refuses breaker settings the policies cannot take (%j), naming %s', (settings, name) => {
      expect(() => loadConfig({ ...env, ...settings })).toThrow(new RegExp(name));
    });

    it.each([[{ BREAKER_FAILURE_RATIO: '0.01' }], [{ BREAKER_FAILURE_RATIO: '0.99' }], [{ BREAKER_MINIMUM_CALLS: '1', BREAKER_HALF_OPEN_PROBES: '1' }], [{ BREAKER_CONSECUTIVE_FAILURES: '3' }]])(
      'builds the policies from every breaker setting the configuration accepts (%j)',
      (settings) => {
        const config = loadConfig({ ...env, ...settings });
        expect(() => new UpstreamResilience({ service: 'pos', ...config.pos.resilience })).not.toThrow();
      },
    );
  });
});

describe('retryAfterMs', () => {
  it('reads delay-seconds', () => {
    expect(retryAfterMs('1')).toBe(1000);
    expect(retryAfterMs(' 3 ')).toBe(3000);
  });

  it('reads an HTTP date relative to now', () => {
    const now = Date.parse('2026-11-21T10:00:00Z');
    expect(retryAfterMs('Sat, 21 Nov 2026 10:00:05 GMT', now)).toBe(5000);
    expect(retryAfterMs('Sat, 21 Nov 2026 09:00:00 GMT', now)).toBe(0);
  });

  it('takes the first of repeated headers', () => {
    expect(retryAfterMs(['2', '9'])).toBe(2000);
  });

  it.each([undefined, '', 'soon'])('gives undefined for %j', (value) => {
    expect(retryAfterMs(value)).toBeUndefined();
  });

  it.each(['-1', '1.5', 'Tomorrow', 'Sat, 21 Nov 2026'])('gives undefined for the malformed %j', (value) => {
    expect(retryAfterMs(value)).toBeUndefined();
  });
});
