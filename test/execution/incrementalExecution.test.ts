import { ApolloClient, HttpLink, InMemoryCache } from '@apollo/client';
import { Defer20220824Handler } from '@apollo/client/incremental';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { print } from 'graphql';
import { DeferredDayViewDocument, type DeferredDayViewQuery } from '../../operations/generated/graphql';
import { acceptsIncremental } from '../../src/execution/incrementalExecution';
import { SAMPLE } from '../../src/sandbox';
import { sha256Hex } from '../../src/sha256';
import { eventually } from '../support/gatewayProcess';
import { startSlowProxy, type SlowProxy } from '../support/slowProxy';
import { LA_TERRAZZA, logLine, startStack, type Stack } from '../support/stack';

/**
 * `@defer` through the whole gateway to Apollo Client 4 over real HTTP: the sandbox services, the POS behind a proxy
 * that holds each answer 300 ms (and fails the checks a test names), the gateway between.
 */

const POS_DELAY_MS = 300;
const MULTIPART = 'multipart/mixed;deferSpec=20220824,application/graphql-response+json,application/json;q=0.9';

type Node = NonNullable<NonNullable<NonNullable<DeferredDayViewQuery['reservations']>['nodes']>[number]>;
interface Emission {
  dataState: string;
  nodes: Array<Node & { check?: unknown }>;
  errors: ReadonlyArray<{ path?: ReadonlyArray<string | number>; extensions?: Record<string, unknown> }>;
  /** POS answers the proxy had sent when Apollo Client emitted this result. */
  posAnswered: number;
}

function apolloClient(stack: Stack, requestIds: string[]): ApolloClient {
  const link = new HttpLink({
    uri: `${stack.url}/graphql`,
    headers: LA_TERRAZZA,
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      requestIds.push(response.headers.get('x-request-id') ?? '');
      return response;
    },
  });
  return new ApolloClient({ cache: new InMemoryCache(), link, incrementalHandler: new Defer20220824Handler() });
}

/** Every result Apollo Client emits for the deferred day view, until it is complete. */
function watchDay(client: ApolloClient, date: string, pos: SlowProxy): Promise<Emission[]> {
  const emissions: Emission[] = [];
  return new Promise((resolve, reject) => {
    const subscription = client.watchQuery({ query: DeferredDayViewDocument, variables: { date, perPage: 50 }, errorPolicy: 'all' }).subscribe({
      next(result) {
        if (result.loading && result.dataState === 'empty') return;
        const nodes = (result.data?.reservations?.nodes ?? []) as Emission['nodes'];
        const errors = (result.error as { errors?: Emission['errors'] } | undefined)?.errors ?? [];
        emissions.push({ dataState: result.dataState, nodes, errors, posAnswered: pos.counts.answered });
        if (result.dataState === 'complete') {
          subscription.unsubscribe();
          resolve(emissions);
        }
      },
      error: reject,
    });
  });
}

describe('incremental execution', () => {
  let stack: Stack;
  let pos: SlowProxy;
  let date: string;

  beforeAll(async () => {
    pos = await startSlowProxy();
    stack = await startStack({ env: { POS_BASE_URL: pos.url, UPSTREAM_RETRIES: '0' } });
    pos.target = stack.sandbox.posUrl;
    date = SAMPLE.laTerrazza.busyDate(stack.sandbox.state);
  });
  afterAll(async () => {
    await stack?.close();
    await pos?.close();
  });
  beforeEach(() => {
    pos.delayMs = POS_DELAY_MS;
    pos.fails = () => false;
    pos.counts.answered = 0;
    pos.counts.received = 0;
  });

  it('gives Apollo Client the reservations before the POS answers, then each check', async () => {
    const requestIds: string[] = [];
    const emissions = await watchDay(apolloClient(stack, requestIds), date, pos);

    const [first] = emissions;
    expect(first.dataState).toBe('streaming');
    expect(first.nodes).toHaveLength(SAMPLE.laTerrazza.busyDateReservationCount);
    expect(first.nodes.every((node) => node.id && node.check === undefined)).toBe(true);
    expect(first.posAnswered).toBe(0);
    const last = emissions.at(-1)!;
    expect(last.nodes.map((n) => n.id)).toEqual(first.nodes.map((n) => n.id));
    expect(last.nodes.some((node) => (node.check as { summary?: unknown } | null)?.summary)).toBe(true);
    expect(last.errors).toEqual([]);

    const line = logLine(stack, requestIds[0]);
    expect(line).toMatchObject({ transport: 'multipart', outcome: 'success', httpStatus: 200 });
    expect(line.events).toBe(emissions.length);
    // Every check call of the deferred parts is in the one record, written once the stream ended.
    expect((line.upstreamCalls as Array<{ service: string }>).filter((c) => c.service === 'pos')).toHaveLength(pos.counts.received);
  }, 20_000);

  it('keeps the list and the other checks when one deferred check fails upstream', async () => {
    const whole = await stack.gql<DeferredDayViewQuery>(print(DeferredDayViewDocument), { date, perPage: 50 });
    const nodes = whole.body.data!.reservations!.nodes!;
    const index = nodes.findIndex((node) => (node as { check?: { id: string } | null }).check);
    const failing = (nodes[index] as { check: { id: string } }).check.id;
    pos.fails = (path) => path.includes(failing);

    const requestIds: string[] = [];
    const emissions = await watchDay(apolloClient(stack, requestIds), date, pos);
    const last = emissions.at(-1)!;
    expect(last.nodes.map((n) => n.id)).toEqual(nodes.map((n) => n!.id));
    // Reservations may share a check: each one of that check has its null and its error at its own path.
    const checkIdAt = (i: number) => (nodes[i] as { check?: { id: string } | null }).check?.id;
    const failed = nodes.flatMap((_, i) => (checkIdAt(i) === failing ? [i] : []));
    for (const i of failed) expect(last.nodes[i].check).toBeNull();
    expect(last.errors.map((e) => e.path)).toEqual(expect.arrayContaining(failed.map((i) => ['reservations', 'nodes', i, 'check'])));
    expect(last.errors).toHaveLength(failed.length);
    expect(last.errors.every((e) => e.extensions?.code === 'UPSTREAM_ERROR')).toBe(true);
    const others = last.nodes.filter((_, i) => checkIdAt(i) !== undefined && checkIdAt(i) !== failing);
    expect(others.length).toBeGreaterThan(0);
    expect(others.every((node) => (node.check as { id?: string } | null)?.id)).toBe(true);
    expect(logLine(stack, requestIds[0])).toMatchObject({ transport: 'multipart', outcome: 'partial', errorCodes: ['UPSTREAM_ERROR'] });
  }, 20_000);

  it('answers a client that does not accept multipart/mixed with the whole result in one JSON body', async () => {
    pos.delayMs = 0;
    const query = print(DeferredDayViewDocument);
    const post = (accept?: string) =>
      fetch(`${stack.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(accept ? { accept } : {}), ...LA_TERRAZZA },
        body: JSON.stringify({ query, variables: { date, perPage: 50 } }),
      });
    const streamed = await post(MULTIPART);
    expect(streamed.headers.get('content-type')).toBe('multipart/mixed; boundary="-"; deferSpec=20220824');
    await streamed.text();

    // graphql-js first, then graphql-jit once the text is compiled (JIT_MIN_USES): both ignore @defer.
    const bodies: unknown[] = [];
    for (const accept of [undefined, 'application/json', '*/*', 'application/graphql-response+json', 'application/json']) {
      const res = await post(accept);
      expect(res.headers.get('content-type')).toMatch(/^application\/(graphql-response\+)?json/);
      bodies.push(await res.json());
      expect(logLine(stack, res.headers.get('x-request-id')!).transport).toBeUndefined();
    }
    expect(stack.logs.some((l) => l.includes('"execution":"compiled"'))).toBe(true);
    const [first, ...rest] = bodies as Array<{ data: DeferredDayViewQuery; errors?: unknown }>;
    expect(first.errors).toBeUndefined();
    expect(first.data.reservations!.nodes!.some((n) => (n as { check?: unknown }).check)).toBe(true);
    for (const body of rest) expect(body).toEqual(first);
  }, 20_000);

  it('streams a list with @stream: its first items with the rest, the others as items in later parts', async () => {
    pos.delayMs = 0;
    const query = `query S($date: Date!) { reservations(date: $date, perPage: 5) { nodes @stream(initialCount: 2) { id } } }`;
    const res = await fetch(`${stack.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: MULTIPART, ...LA_TERRAZZA },
      body: JSON.stringify({ query, variables: { date } }),
    });
    const parts = (await res.text())
      .split('\r\n---')
      .filter((p) => p.includes('{'))
      .map((p) => JSON.parse(p.slice(p.indexOf('{'))) as { data?: { reservations: { nodes: unknown[] } }; incremental?: Array<{ items: unknown[]; path: unknown[] }>; hasNext: boolean });
    expect(parts[0].data!.reservations.nodes).toHaveLength(2);
    const streamed = parts.slice(1).flatMap((p) => p.incremental ?? []);
    expect(streamed.flatMap((entry) => entry.items)).toHaveLength(3);
    expect(streamed[0].path).toEqual(['reservations', 'nodes', 2]);
    expect(parts.at(-1)!.hasNext).toBe(false);
  });

  it('records a client that leaves before the checks once, with the parts it was sent', async () => {
    const send = (requestId: string, signal?: AbortSignal) =>
      fetch(`${stack.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: MULTIPART, 'x-request-id': requestId, ...LA_TERRAZZA },
        body: JSON.stringify({ query: print(DeferredDayViewDocument), variables: { date, perPage: 50 } }),
        signal,
      });
    await (await send('stays')).text();
    const whole = logLine(stack, 'stays').events as number;
    pos.counts.answered = 0;

    const aborted = new AbortController();
    const res = await send('leaves-early', aborted.signal);
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('"hasNext":true')) text += new TextDecoder().decode((await reader.read()).value);
    expect(pos.counts.answered).toBe(0);
    aborted.abort();
    const lines = () => stack.logs.filter((l) => l.includes('"requestId":"leaves-early"') && l.includes('"graphql request"'));
    expect(await eventually(() => lines().length > 0)).toBe(true);
    expect(lines()).toHaveLength(1);
    // The part ready when it left is not sent, nor any after it (reservations without a check come at once).
    const line = logLine(stack, 'leaves-early');
    expect(line.transport).toBe('multipart');
    expect(line.events).toBeGreaterThanOrEqual(1);
    expect(line.events).toBeLessThan(whole);
  });

  it('judges the whole operation against the limits, deferred parts included', async () => {
    const limited = await startStack({ env: { MAX_UPSTREAM_CALLS: '5' } });
    try {
      const res = await fetch(`${limited.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: MULTIPART, ...LA_TERRAZZA },
        body: JSON.stringify({ query: print(DeferredDayViewDocument), variables: { date, perPage: 50 } }),
      });
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/(graphql-response\+)?json/);
      expect(res.headers.get('cache-control')).toBe('no-store');
      const body = (await res.json()) as { errors: Array<{ extensions: { code: string } }> };
      expect(body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
      expect(limited.sandbox.requests).toHaveLength(0);
    } finally {
      await limited.close();
    }
  });
});

describe('incremental execution and client budgets', () => {
  let stack: Stack;
  const key = 'deferring-partner-key';
  beforeAll(async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'tablegraph-clients-')), 'clients.yaml');
    writeFileSync(file, `clients:\n  - name: host-stand\n    audience: partner\n    keySha256: ${sha256Hex(key)}\n    policy: { upstreamCallsPerMinute: 1000 }\n`);
    stack = await startStack({ env: { CLIENTS_FILE: file } });
  });
  afterAll(() => stack?.close());

  /** What is left of the upstream-call budget, as the RateLimit header says it. */
  const left = (res: Response) => Number(/"upstream-calls";r=(\d+)/.exec(res.headers.get('ratelimit') ?? '')?.[1]);

  it('charges the client every upstream call of every part, once the stream has ended', async () => {
    const headers = { 'content-type': 'application/json', 'x-api-key': key, ...LA_TERRAZZA };
    const date = SAMPLE.laTerrazza.busyDate(stack.sandbox.state);
    const before = left(await fetch(`${stack.url}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query: '{ __typename }' }) }));
    const res = await fetch(`${stack.url}/graphql`, {
      method: 'POST',
      headers: { ...headers, accept: MULTIPART, 'x-request-id': 'charged' },
      body: JSON.stringify({ query: print(DeferredDayViewDocument), variables: { date, perPage: 50 } }),
    });
    expect(res.headers.get('content-type')).toContain('multipart/mixed');
    await res.text();
    const calls = (logLine(stack, 'charged').upstreamCalls as Array<{ service: string }>).length;
    // The list, then one call per distinct check, all in deferred parts.
    expect(calls).toBe(1 + SAMPLE.laTerrazza.busyDateDistinctCheckCount);
    const after = left(await fetch(`${stack.url}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query: '{ __typename }' }) }));
    expect(before - after).toBe(calls);
  });

  it('tells the actual cost of all parts together, as much as the same operation answered whole', async () => {
    const headers = { 'content-type': 'application/json', 'x-api-key': key, ...LA_TERRAZZA };
    const body = JSON.stringify({ query: print(DeferredDayViewDocument), variables: { date: SAMPLE.laTerrazza.busyDate(stack.sandbox.state), perPage: 50 } });
    const actualCost = async () => Number(/tablegraph_client_actual_cost_sum\{client="host-stand"\} (\d+(\.\d+)?)/.exec(await (await fetch(`${stack.url}/metrics`)).text())?.[1] ?? 0);
    const start = await actualCost();
    await (await fetch(`${stack.url}/graphql`, { method: 'POST', headers, body })).text();
    const whole = (await actualCost()) - start;
    await (await fetch(`${stack.url}/graphql`, { method: 'POST', headers: { ...headers, accept: MULTIPART }, body })).text();
    const incremental = (await actualCost()) - start - whole;
    expect(whole).toBeGreaterThan(50);
    expect(incremental).toBe(whole);
  });
});

describe('acceptsIncremental', () => {
  it('takes multipart/mixed named in Accept, bare or with deferSpec=20220824', () => {
    expect(acceptsIncremental('multipart/mixed;deferSpec=20220824,application/graphql-response+json,application/json;q=0.9')).toBe(true);
    expect(acceptsIncremental('application/json, multipart/mixed')).toBe(true);
    expect(acceptsIncremental('multipart/mixed; deferSpec="20220824"; q=0.5')).toBe(true);
  });

  it('leaves wildcards, a refused multipart, and other incremental formats to the whole answer', () => {
    expect(acceptsIncremental(undefined)).toBe(false);
    expect(acceptsIncremental('*/*')).toBe(false);
    expect(acceptsIncremental('multipart/*')).toBe(false);
    expect(acceptsIncremental('multipart/mixed;q=0, application/json')).toBe(false);
    expect(acceptsIncremental('multipart/mixed;incrementalSpec=v0.2')).toBe(false);
    expect(acceptsIncremental('multipart/mixed;subscriptionSpec=1.0')).toBe(true);
  });
});
