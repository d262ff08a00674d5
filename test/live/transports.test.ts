import WebSocket from 'ws';
import { eventually } from '../support/gatewayProcess';
import { LIVE_DAY, liveClient, multipartSubscribe, reservationIdOf, sseSubscribe, startLiveUpstreams, subscribe, type LiveSubscription, type LiveUpstreams } from '../support/liveClient';
import { LA_TERRAZZA, startStack, type Stack } from '../support/stack';
import { MANIFEST_PATH, manifest, operation } from '../trustedDocuments/support';

const DATE = '2026-11-21';
const TOKEN = LA_TERRAZZA['Reservation-Access-Token'];
const TRANSPORTS = ['ws', 'sse', 'multipart'] as const;
type Transport = (typeof TRANSPORTS)[number];

let upstreams: LiveUpstreams;
let stack: Stack;
const open: LiveSubscription[] = [];
const sockets: Array<{ dispose(): void | Promise<void> }> = [];

beforeAll(async () => {
  upstreams = await startLiveUpstreams();
  stack = await startStack({
    env: {
      RESERVATION_BASE_URL: upstreams.reservation.url,
      POS_BASE_URL: upstreams.pos.url,
      LIVE_POLL_SECONDS: '0.1',
      UPSTREAM_RETRIES: '0',
      MAX_UPSTREAM_CALLS: '60',
      TRUSTED_DOCUMENTS: MANIFEST_PATH,
    },
  });
});

afterEach(async () => {
  for (const s of open.splice(0)) s.unsubscribe();
  await Promise.all(sockets.splice(0).map(async (c) => c.dispose()));
  expect(await eventually(async () => (await metric('tablegraph_live_subscriptions')) === 0)).toBe(true);
  upstreams.status = 'confirmed';
});

afterAll(async () => {
  await stack.close();
  await upstreams.close();
});

async function metric(name: string, labels: Record<string, string> = {}): Promise<number> {
  const found = stack.gateway.metrics.registry.getSingleMetric(name);
  if (!found) throw new Error(`no metric ${name}`);
  const values = (await found.get()).values.filter((v) => Object.entries(labels).every(([k, value]) => v.labels[k] === value));
  return values.reduce((sum, v) => sum + v.value, 0);
}

/** A subscription over `transport` by text, or by trusted id (`documentId`, with graphql-ws's empty `query`). */
function live(transport: Transport, options: { id?: string; headers?: Record<string, string>; query?: string } = {}): LiveSubscription {
  const headers = options.headers ?? LA_TERRAZZA;
  const query = options.query ?? LIVE_DAY;
  const variables = { date: DATE };
  let subscription: LiveSubscription;
  if (transport === 'ws') {
    const client = liveClient(stack.url, headers);
    sockets.push(client);
    subscription = options.id
      ? (() => {
          const s: LiveSubscription = { events: [], completed: false, unsubscribe: () => undefined };
          s.unsubscribe = client.subscribe({ query: '', documentId: options.id, variables } as { query: string }, {
            next: (e) => s.events.push(e as LiveSubscription['events'][number]),
            error: (e) => (s.error = e),
            complete: () => (s.completed = true),
          });
          return s;
        })()
      : subscribe(client, variables, query);
  } else if (transport === 'sse') {
    subscription = sseSubscribe(stack.url, headers, options.id ? { query: '', documentId: options.id, variables } : { query, variables });
  } else {
    // By id, Apollo Client still reads the answer with the document it names.
    const text = options.id ? manifest().operations.find((o) => o.id === options.id)!.body : query;
    subscription = multipartSubscribe(stack.url, headers, text, variables, options.id);
  }
  open.push(subscription);
  return subscription;
}

const lines = () => stack.logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'graphql request');
const statusOf = (s: LiveSubscription, i: number) => s.events[i]?.data?.reservations?.nodes[0]?.status;

describe.each(TRANSPORTS)('a live subscription over %s', (transport) => {
  it('sends the first event at once, each change after it, and on its end one graphql request line and one count', async () => {
    const before = lines().length;
    const counted = await metric('tablegraph_graphql_requests_total', { operation: 'LiveDay' });
    const s = live(transport);
    expect(await eventually(() => s.events.length === 1)).toBe(true);
    expect(s.events[0].data?.reservations?.nodes[0]).toMatchObject({ id: reservationIdOf(TOKEN), status: 'confirmed' });
    upstreams.status = 'seated';
    expect(await eventually(() => s.events.length === 2)).toBe(true);
    expect(statusOf(s, 1)).toBe('seated');
    upstreams.status = 'cancelled';
    expect(await eventually(() => s.events.length === 3)).toBe(true);
    expect(statusOf(s, 2)).toBe('cancelled');
    s.unsubscribe();

    const ended = () => lines().slice(before).filter((l) => l.transport === transport);
    expect(await eventually(() => ended().length > 0)).toBe(true);
    expect(ended()).toEqual([
      expect.objectContaining({ operationName: 'LiveDay', outcome: 'success', events: 3, requestId: expect.any(String), actualUpstreamCalls: expect.any(String) }),
    ]);
    if (transport === 'ws') expect(ended()[0]).not.toHaveProperty('httpStatus');
    else expect(ended()[0]).toMatchObject({ httpStatus: 200 });
    expect(await metric('tablegraph_graphql_requests_total', { operation: 'LiveDay' })).toBe(counted + 1);
  });

  it('runs a trusted document named by id', async () => {
    const before = lines().length;
    const s = live(transport, { id: operation('LiveDayView').id });
    expect(await eventually(() => s.events.length === 1)).toBe(true);
    expect(s.events[0].data?.reservations?.nodes[0]).toMatchObject({ id: reservationIdOf(TOKEN) });
    upstreams.status = 'seated';
    expect(await eventually(() => s.events.length === 2)).toBe(true);
    s.unsubscribe();
    expect(await eventually(() => lines().slice(before).some((l) => l.transport === transport))).toBe(true);
    expect(lines().slice(before).find((l) => l.transport === transport)).toMatchObject({ operationName: 'LiveDayView', document: 'trusted', events: 2 });
  });

  it('logs a refusal at subscribe with its requestId, before any upstream call', async () => {
    const requestId = `refused-${transport}`;
    const calls = upstreams.reservation.requests.length;
    const costly = `subscription Costly { reservations(date: "${DATE}", perPage: 100) { nodes { check { id } } } }`;
    const s = live(transport, { headers: { ...LA_TERRAZZA, 'X-Request-Id': requestId }, query: costly });
    expect(await eventually(() => s.error !== undefined || s.events.some((e) => e.errors))).toBe(true);
    expect(await eventually(() => lines().some((l) => l.requestId === requestId))).toBe(true);
    expect(lines().filter((l) => l.requestId === requestId)).toEqual([
      expect.objectContaining({ transport, outcome: 'error', errorCodes: ['GRAPHQL_VALIDATION_FAILED'], events: 0, ...(transport === 'ws' ? {} : { httpStatus: 400 }) }),
    ]);
    expect(upstreams.reservation.requests.length).toBe(calls);
  });
});

describe('live subscriptions over HTTP', () => {
  it('streams Server-Sent Events to a plain GET, as `curl -N` reads them, with Cache-Control: no-store', async () => {
    const params = new URLSearchParams({ query: LIVE_DAY, variables: JSON.stringify({ date: DATE }) });
    const controller = new AbortController();
    const res = await fetch(`${stack.url}/graphql?${params.toString()}`, { headers: { ...LA_TERRAZZA, accept: 'text/event-stream' }, signal: controller.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('event: next')) text += new TextDecoder().decode((await reader.read()).value);
    expect(text).toContain(reservationIdOf(TOKEN));
    controller.abort();
  });

  it('refuses a mutation sent by GET for an event stream, as any GET', async () => {
    const params = new URLSearchParams({ query: 'mutation { updatePaymentRequest(input: { id: "x" }) { __typename } }' });
    const res = await fetch(`${stack.url}/graphql?${params.toString()}`, { headers: { ...LA_TERRAZZA, accept: 'text/event-stream' } });
    expect(res.status).toBe(405);
  });

  it('sends upstream only the credential headers and the gateway\'s own request id and trace context', async () => {
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const since = upstreams.reservation.requests.length;
    const s = live('sse', { headers: { ...LA_TERRAZZA, traceparent, cookie: 'session=secret-cookie', 'user-agent': 'subscriber-agent/1.0', 'x-request-id': 'subscriber-request', 'x-custom': 'custom-value' } });
    expect(await eventually(() => s.events.length === 1)).toBe(true);
    await eventually(() => upstreams.reservation.requests.length >= since + 3);
    const reads = upstreams.reservation.requests.slice(since);
    expect(reads.length).toBeGreaterThan(0);
    for (const { headers } of reads) {
      expect(headers['reservation-access-token']).toBe(TOKEN);
      expect(headers).not.toHaveProperty('cookie');
      expect(headers).not.toHaveProperty('x-custom');
      expect(headers['user-agent']).not.toBe('subscriber-agent/1.0');
      expect(headers['x-request-id']).toEqual(expect.any(String));
      expect(headers['x-request-id']).not.toBe('subscriber-request');
      expect(headers.traceparent).toEqual(expect.any(String));
      expect(headers.traceparent).not.toContain('0af7651916cd43dd8448eb211c80319c');
    }
  });

  it('keeps the 400 refusal of a subscription sent as plain JSON', async () => {
    const res = await stack.gql(LIVE_DAY, { date: DATE });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ extensions: { code: 'BAD_REQUEST' } })]);
  });
});

describe('graphql-ws subscribe messages', () => {
  async function raw(): Promise<{ socket: WebSocket; messages: Array<{ id?: string; type: string; payload?: unknown }> }> {
    const socket = new WebSocket(`${stack.url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
    sockets.push({ dispose: () => socket.close() });
    const messages: Array<{ id?: string; type: string; payload?: unknown }> = [];
    socket.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString('utf8')) as (typeof messages)[number]));
    await new Promise((resolve) => socket.once('open', resolve));
    socket.send(JSON.stringify({ type: 'connection_init', payload: LA_TERRAZZA }));
    expect(await eventually(() => messages.some((m) => m.type === 'connection_ack'))).toBe(true);
    return { socket, messages };
  }

  it('runs a trusted id sent without any query, and answers a subscribe naming no document with an error for it alone', async () => {
    const { socket, messages } = await raw();
    socket.send(JSON.stringify({ id: 'by-id', type: 'subscribe', payload: { documentId: operation('LiveDayView').id, variables: { date: DATE } } }));
    socket.send(JSON.stringify({ id: 'nothing', type: 'subscribe', payload: { variables: { date: DATE } } }));
    expect(await eventually(() => messages.some((m) => m.id === 'by-id' && m.type === 'next') && messages.some((m) => m.id === 'nothing'))).toBe(true);
    expect(messages.find((m) => m.id === 'nothing')).toMatchObject({ type: 'error', payload: [expect.objectContaining({ extensions: expect.objectContaining({ code: 'BAD_REQUEST' }) })] });
    expect(socket.readyState).toBe(WebSocket.OPEN);
  });
});
