import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/logger';
import { loggingHooks } from '../../src/upstreams';
import { SAMPLE } from '../../src/sandbox';
import { WRONG_SHAPE_FIELD, refusedUrl, startFaultyUpstream, type FaultMode, type FaultyUpstream } from '../support/faultyUpstream';
import { LA_TERRAZZA, startStack, type GraphQLResponse, type Stack } from '../support/stack';

const REQUEST_TIMEOUT_MS = 1500;

/** Small budgets, and a breaker and retry budget out of the way so that one fault never shapes the next test. */
const BUDGETS: Record<string, string> = {
  UPSTREAM_CONNECT_TIMEOUT_MS: '300',
  UPSTREAM_HEADERS_TIMEOUT_MS: '300',
  UPSTREAM_BODY_TIMEOUT_MS: '300',
  REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
  UPSTREAM_RETRY_BASE_DELAY_MS: '10',
  UPSTREAM_RETRY_BUDGET_MIN_PER_SECOND: '100',
  BREAKER_CONSECUTIVE_FAILURES: '1000',
  BREAKER_WINDOW_SIZE: '1000',
  BREAKER_MINIMUM_CALLS: '1000',
  BREAKER_HALF_OPEN_AFTER_MS: '60000',
};

interface ServiceCase {
  service: 'pos' | 'reservation';
  baseUrlSetting: 'POS_BASE_URL' | 'RESERVATION_BASE_URL';
  root: 'check' | 'reservation';
  query: string;
  path: (id: string) => string;
  wrongField: string;
  /** Where the field `wrongField` arrives in the answer to `query`. */
  wrongPath: string[];
  /** What `unusable` names: the field the record cannot go without. */
  idField: string;
}

const SERVICES: ServiceCase[] = [
  {
    service: 'pos',
    baseUrlSetting: 'POS_BASE_URL',
    root: 'check',
    query: 'query ($id: ID!) { check(id: $id) { id alias } }',
    path: (id) => `/checks/${id}`,
    wrongField: WRONG_SHAPE_FIELD.check,
    wrongPath: ['check', 'alias'],
    idField: 'id',
  },
  {
    service: 'reservation',
    baseUrlSetting: 'RESERVATION_BASE_URL',
    root: 'reservation',
    query: 'query ($id: ID!) { reservation(id: $id) { id guestCount } }',
    path: (id) => `/v1/reservations/${id}`,
    wrongField: WRONG_SHAPE_FIELD.reservation,
    wrongPath: ['reservation', 'guestCount'],
    idField: 'reservation.id',
  },
];

interface FaultCase {
  mode: FaultMode;
  code: string;
  /** `extensions.upstream.status`, or none when the upstream gave no answer. */
  status?: number;
}

const FAULTS: FaultCase[] = [
  { mode: 'hang', code: 'UPSTREAM_TIMEOUT' },
  { mode: 'slowBody', code: 'UPSTREAM_TIMEOUT' },
  { mode: 'status500', code: 'UPSTREAM_ERROR', status: 500 },
  { mode: 'reset', code: 'UPSTREAM_UNAVAILABLE' },
  { mode: 'nonJson', code: 'UPSTREAM_BAD_RESPONSE', status: 200 },
  { mode: 'unusable', code: 'UPSTREAM_BAD_RESPONSE', status: 200 },
  { mode: 'redirect', code: 'UPSTREAM_BAD_RESPONSE', status: 302 },
];

type Body = GraphQLResponse['body'];

/** What `extensions.upstream` names besides service and status: the deviation of an answer read as a record. */
const DEVIATION_OF: Partial<Record<FaultMode, { field: string; received: string }>> = { nonJson: { field: '(body)', received: 'not_json' } };

/** What no client may ever read in an error: addresses, credentials, stack frames. */
function expectNothingLeaked(body: Body): void {
  const text = JSON.stringify(body.errors ?? []);
  expect(text).not.toContain('127.0.0.1');
  expect(text).not.toContain('http://');
  for (const value of Object.values(LA_TERRAZZA)) expect(text).not.toContain(value);
  for (const error of body.errors ?? []) {
    expect(error.message).not.toMatch(/^\s*at /m);
    expect(error.extensions).not.toHaveProperty('stacktrace');
  }
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; elapsedMs: number }> {
  const started = performance.now();
  const value = await work();
  return { value, elapsedMs: performance.now() - started };
}

async function healthz(stack: Stack): Promise<number> {
  return (await fetch(`${stack.url}/healthz`)).status;
}

describe.each(SERVICES)('upstream faults of the $service service', ({ service, baseUrlSetting, root, query, path, wrongField, wrongPath, idField }) => {
  let upstream: FaultyUpstream;
  let stack: Stack;
  const id = randomUUID();

  beforeAll(async () => {
    upstream = await startFaultyUpstream();
    stack = await startStack({ env: { ...BUDGETS, [baseUrlSetting]: upstream.url } });
  });
  afterAll(async () => {
    await stack.close();
    await upstream.close();
  });
  beforeEach(() => upstream.reset());

  it(`serves ${root}(id) from the stand-in when it answers well`, async () => {
    const res = await stack.gql(query, { id });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data?.[root]).toMatchObject({ id });
    expect(upstream.count('GET', path(id))).toBe(1);
  });

  it.each(FAULTS)(`answers $code when the ${service} service does $mode, within the request budget`, async ({ mode, code, status }) => {
    upstream.mode = mode;
    const { value: res, elapsedMs } = await timed(() => stack.gql(query, { id }));

    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ [root]: null });
    expect(res.body.errors).toHaveLength(1);
    const [error] = res.body.errors!;
    expect(error.path).toEqual([root]);
    expect(error.extensions?.code).toBe(code);
    if (status === undefined) expect(error.extensions?.upstream).toBeUndefined();
    else expect(error.extensions?.upstream).toEqual({ service, status, ...(mode === 'unusable' ? { field: idField, received: 'missing' } : DEVIATION_OF[mode]) });
    expect(elapsedMs).toBeLessThan(REQUEST_TIMEOUT_MS + 1000);
    expect(upstream.count('GET', path(id))).toBeGreaterThanOrEqual(1);
    expectNothingLeaked(res.body);
    expect(await healthz(stack)).toBe(200);
  });

  it('retries a 503 with Retry-After within the budget, then answers UPSTREAM_ERROR', async () => {
    upstream.mode = 'status503RetryAfter';
    const { value: res, elapsedMs } = await timed(() => stack.gql(query, { id }));
    expect(res.body.data).toEqual({ [root]: null });
    expect(res.body.errors).toEqual([expect.objectContaining({ path: [root], extensions: { code: 'UPSTREAM_ERROR', upstream: { service, status: 503 } } })]);
    // The first retry waits 1 s; a second one would end past the 1.5 s budget, so it is not made.
    expect(upstream.count('GET', path(id))).toBe(2);
    expect(elapsedMs).toBeGreaterThanOrEqual(900);
    expect(elapsedMs).toBeLessThan(REQUEST_TIMEOUT_MS + 1000);
    expectNothingLeaked(res.body);
    expect(await healthz(stack)).toBe(200);
  });

  it('retries a reset connection twice before answering UPSTREAM_UNAVAILABLE', async () => {
    upstream.mode = 'reset';
    const res = await stack.gql(query, { id });
    expect(res.body.errors?.[0]?.extensions?.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(upstream.count('GET', path(id))).toBe(3);
  });

  it('fails a field of the wrong shape alone, as a bad response that names the upstream field', async () => {
    upstream.mode = 'wrongShape';
    const res = await stack.gql(query, { id });
    expect(res.body.errors).toHaveLength(1);
    const [error] = res.body.errors!;
    expect(error.path).toEqual(wrongPath);
    expect(error.extensions?.code).toBe('UPSTREAM_BAD_RESPONSE');
    expect(error.message).toContain(`field ${wrongField}`);
    expect(res.body.data?.[root]).toEqual({ id: expect.any(String), [wrongPath[1]]: null });
  });

  it('never follows a redirect: its target is not hit', async () => {
    upstream.mode = 'redirect';
    const res = await stack.gql(query, { id });
    expect(res.body.errors?.[0]?.extensions?.code).toBe('UPSTREAM_BAD_RESPONSE');
    expect(upstream.count('GET', path(id))).toBe(1);
    expect(upstream.redirectTarget.requests).toHaveLength(0);
  });

  it('answers UPSTREAM_UNAVAILABLE when the connection is refused', async () => {
    const refused = await startStack({ env: { ...BUDGETS, [baseUrlSetting]: await refusedUrl() } });
    try {
      const { value: res, elapsedMs } = await timed(() => refused.gql(query, { id }));
      expect(res.body.data).toEqual({ [root]: null });
      expect(res.body.errors?.[0]?.path).toEqual([root]);
      expect(res.body.errors?.[0]?.extensions?.code).toBe('UPSTREAM_UNAVAILABLE');
      expect(res.body.errors?.[0]?.extensions?.upstream).toBeUndefined();
      expect(elapsedMs).toBeLessThan(REQUEST_TIMEOUT_MS + 1000);
      expectNothingLeaked(res.body);
      expect(await healthz(refused)).toBe(200);
    } finally {
      await refused.close();
    }
  });
});

describe('the circuit breaker through the gateway', () => {
  let upstream: FaultyUpstream;
  let stack: Stack;

  beforeAll(async () => {
    upstream = await startFaultyUpstream('status500');
    stack = await startStack({ env: { ...BUDGETS, BREAKER_CONSECUTIVE_FAILURES: '3', POS_BASE_URL: upstream.url } });
  });
  afterAll(async () => {
    await stack.close();
    await upstream.close();
  });

  const circuitLines = () =>
    stack.logs.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.circuit !== undefined);

  it('opens the POS circuit, fails check fast without calling POS, and still serves the reservation beside it', async () => {
    const checkQuery = 'query ($id: ID!) { check(id: $id) { id } }';
    for (let i = 0; i < 3; i++) {
      const res = await stack.gql(checkQuery, { id: randomUUID() });
      expect(res.body.errors?.[0]?.extensions?.code).toBe('UPSTREAM_ERROR');
    }
    expect(upstream.requests).toHaveLength(3);
    expect(circuitLines()).toEqual([expect.objectContaining({ circuit: 'open', msg: 'circuit of the pos service is open' })]);

    stack.sandbox.resetRequests();
    const { value: res, elapsedMs } = await timed(() =>
      stack.gql(`query ($id: ID!) { reservation(id: $id) { id status guestCount check { id alias } } }`, { id: SAMPLE.laTerrazza.reservationWithCheckId }),
    );

    expect(elapsedMs).toBeLessThan(500);
    expect(upstream.requests).toHaveLength(3);
    expect(res.body.data).toEqual({
      reservation: { id: SAMPLE.laTerrazza.reservationWithCheckId, status: expect.any(String), guestCount: expect.any(Number), check: null },
    });
    expect(res.body.errors).toEqual([
      expect.objectContaining({ path: ['reservation', 'check'], extensions: { code: 'UPSTREAM_UNAVAILABLE', service: 'pos' } }),
    ]);
    expect(res.body.errors![0].message).toMatch(/circuit is open/);
    expectNothingLeaked(res.body);
    expect(stack.sandbox.requests.map((r) => `${r.service} ${r.method}`)).toEqual(['reservation GET']);
  });

  it('names the upstream of a circuit change under a key of its own', () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    loggingHooks(createLogger({ level: 'info', destination })).onCircuitStateChange!('pos', 'open');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('"circuit":"open"');
    expect(lines[0].match(/"service":/g)).toHaveLength(1);
    expect(lines[0]).toContain('"upstream":"pos"');
  });
});
