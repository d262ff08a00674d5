import { ApolloClient, ApolloLink, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { getMainDefinition } from '@apollo/client/utilities';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import WebSocket from 'ws';
import { eventually } from '../support/gatewayProcess';
import { LIVE_DAY, liveClient, reservationIdOf, startLiveUpstreams, subscribe, type LiveSubscription, type LiveUpstreams } from '../support/liveClient';
import { BISTRO_NORD, LA_TERRAZZA, startStack, type Stack } from '../support/stack';
import { Kind, OperationTypeNode } from 'graphql';
import { createClient } from 'graphql-ws';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sha256Hex } from '../../src/sha256';
import { MANIFEST_PATH, operation, post } from '../trustedDocuments/support';

const DATE = '2026-11-21';
const A_TOKEN = LA_TERRAZZA['Reservation-Access-Token'];
const B_TOKEN = BISTRO_NORD['Reservation-Access-Token'];

let upstreams: LiveUpstreams;
let stack: Stack;
const clients: Array<{ dispose(): void | Promise<void> }> = [];
const disposeAll = () => Promise.all(clients.splice(0).map(async (c) => c.dispose()));

beforeAll(async () => {
  upstreams = await startLiveUpstreams();
  stack = await startStack({
    env: {
      RESERVATION_BASE_URL: upstreams.reservation.url,
      POS_BASE_URL: upstreams.pos.url,
      LIVE_POLL_SECONDS: '0.1',
      UPSTREAM_RETRIES: '0',
      // A day of 10 reservations with their checks is 11 calls; a page of 100 is over.
      MAX_UPSTREAM_CALLS: '60',
      MAX_DEPTH: '5',
      BREAKER_CONSECUTIVE_FAILURES: '1000',
      BREAKER_MINIMUM_CALLS: '1000',
    },
  });
});

afterEach(async () => {
  await disposeAll();
  // Every poll stopped with its subscribers, so one test's reads never show in the next one's counts.
  expect(await eventually(async () => (await metric('tablegraph_live_subscriptions')) === 0)).toBe(true);
  Object.assign(upstreams, { status: 'confirmed', checkStatus: 'open', fail: 'ok' });
});

afterAll(async () => {
  await stack.close();
  await upstreams.close();
});

function connect(headers: Record<string, string> = LA_TERRAZZA) {
  const client = liveClient(stack.url, headers);
  clients.push(client);
  return client;
}

/** A metric's value, summed over its labels. */
async function metric(name: string): Promise<number> {
  const found = stack.gateway.metrics.registry.getSingleMetric(name);
  if (!found) throw new Error(`no metric ${name}`);
  return (await found.get()).values.reduce((sum, v) => sum + v.value, 0);
}

/** Waits until `token`'s list has been read `reads` more times: time passing, measured in the gateway's own polls. */
async function pollsPass(token: string, reads: number): Promise<void> {
  const until = upstreams.listCalls(token) + reads;
  expect(await eventually(() => upstreams.listCalls(token) >= until)).toBe(true);
}

const statusOf = (s: LiveSubscription, i: number) => s.events[i]?.data?.reservations?.nodes[0]?.status;

describe('live subscriptions', () => {
  it('sends the first event at once, nothing while the data stays the same, and an event when it changes', async () => {
    const live = subscribe(connect(), { date: DATE });
    expect(await eventually(() => live.events.length === 1)).toBe(true);
    expect(live.events[0].data?.reservations?.nodes[0]).toMatchObject({ id: reservationIdOf(A_TOKEN), status: 'confirmed', check: { status: 'open' } });
    await pollsPass(A_TOKEN, 3);
    expect(live.events).toHaveLength(1);

    upstreams.status = 'seated';
    expect(await eventually(() => live.events.length === 2)).toBe(true);
    expect(statusOf(live, 1)).toBe('seated');

    // The check is part of the selection: a check paid is a change too.
    upstreams.checkStatus = 'closed';
    expect(await eventually(() => live.events.length === 3)).toBe(true);
    expect(live.events[2].data?.reservations?.nodes[0]?.check?.status).toBe('closed');
    expect(live.completed).toBe(false);
  });

  it("reads fresh for every subscriber of a poll, whatever staleness the first one's Cache-Control allowed", async () => {
    const live = subscribe(connect({ ...LA_TERRAZZA, 'Cache-Control': 'max-age=30' }), { date: DATE });
    expect(await eventually(() => live.events.length === 1)).toBe(true);
    upstreams.status = 'seated';
    expect(await eventually(() => live.events.length === 2)).toBe(true);
    expect(statusOf(live, 1)).toBe('seated');
  });

  it('refuses a subscription that sends one credential under both spellings with different values', async () => {
    const live = subscribe(connect({ ...LA_TERRAZZA, EMPLOYEE_TOKEN: 'one-value', 'Employee-Token': 'another-value' }), { date: DATE });
    expect(await eventually(() => live.error !== undefined)).toBe(true);
    expect(live.error).toEqual([expect.objectContaining({ extensions: { code: 'BAD_USER_INPUT' } })]);
    expect(live.events).toHaveLength(0);
  });

  it('serves 20 subscribers of one view with one poll, and keeps each venue to its own data', async () => {
    const venueA = Array.from({ length: 20 }, () => subscribe(connect(), { date: DATE }));
    const venueB = subscribe(connect(BISTRO_NORD), { date: DATE });
    expect(await eventually(() => venueA.every((s) => s.events.length === 1) && venueB.events.length === 1)).toBe(true);
    const [a0, b0] = [upstreams.listCalls(A_TOKEN), upstreams.listCalls(B_TOKEN)];
    await pollsPass(B_TOKEN, 5);
    // One read per interval for each venue's view, whatever the number of subscribers (±1 for where each interval fell).
    expect(Math.abs(upstreams.listCalls(A_TOKEN) - a0 - (upstreams.listCalls(B_TOKEN) - b0))).toBeLessThanOrEqual(1);
    for (const s of venueA) expect(s.events[0].data?.reservations?.nodes[0]?.id).toBe(reservationIdOf(A_TOKEN));
    expect(venueB.events[0].data?.reservations?.nodes[0]?.id).toBe(reservationIdOf(B_TOKEN));
  });

  it('refuses a subscription beyond LIVE_MAX_SUBSCRIPTIONS_PER_CONNECTION, and only that one', async () => {
    const client = connect();
    const held = Array.from({ length: 10 }, () => subscribe(client, { date: DATE }));
    expect(await eventually(() => held.every((s) => s.events.length === 1))).toBe(true);
    const eleventh = subscribe(client, { date: DATE });
    expect(await eventually(() => eleventh.error !== undefined)).toBe(true);
    expect(eleventh.error).toEqual([expect.objectContaining({ extensions: { code: 'RATE_LIMITED' } })]);
    expect(held.every((s) => s.error === undefined && !s.completed)).toBe(true);
    const refused = stack.logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'graphql request' && l.outcome === 'error');
    expect(refused.at(-1)).toMatchObject({ requestId: expect.any(String), transport: 'ws', events: 0, errorCodes: ['RATE_LIMITED'] });
  });

  it('sends an upstream failure as an event with errors and stays open; the next good read sends data again', async () => {
    const live = subscribe(connect(), { date: DATE });
    expect(await eventually(() => live.events.length === 1)).toBe(true);
    upstreams.fail = 500;
    expect(await eventually(() => live.events.length === 2)).toBe(true);
    expect(live.events[1].data).toEqual({ reservations: null });
    expect(live.events[1].errors).toEqual([expect.objectContaining({ path: ['reservations'], extensions: expect.objectContaining({ code: 'UPSTREAM_ERROR' }) })]);
    upstreams.fail = 'ok';
    expect(await eventually(() => live.events.length === 3)).toBe(true);
    expect(statusOf(live, 2)).toBe('confirmed');
    expect(live.completed).toBe(false);
  });

  it('sends an upstream 401 as UNAUTHENTICATED, then completes', async () => {
    upstreams.fail = 401;
    const live = subscribe(connect(), { date: DATE });
    expect(await eventually(() => live.completed)).toBe(true);
    expect(live.events).toHaveLength(1);
    expect(live.events[0].errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('stops polling when the last subscriber completes', async () => {
    const linesBefore = stack.logs.length;
    const first = subscribe(connect(), { date: DATE });
    const second = subscribe(connect(), { date: DATE });
    expect(await eventually(() => first.events.length === 1 && second.events.length === 1)).toBe(true);
    first.unsubscribe();
    await pollsPass(A_TOKEN, 2);
    second.unsubscribe();
    expect(await eventually(async () => (await metric('tablegraph_live_subscriptions')) === 0)).toBe(true);
    const after = upstreams.listCalls(A_TOKEN);
    // Another venue's poll marks the time: five of its reads, and none more of La Terrazza's than one in flight.
    subscribe(connect(BISTRO_NORD), { date: DATE });
    await pollsPass(B_TOKEN, 5);
    expect(upstreams.listCalls(A_TOKEN) - after).toBeLessThanOrEqual(1);
    const ended = stack.logs.slice(linesBefore).map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'graphql request' && l.operationName === 'LiveDay');
    expect(ended).toHaveLength(2);
    expect(ended.at(-1)).toMatchObject({ transport: 'ws', events: 1, outcome: 'success', actualUpstreamCalls: expect.any(String), durationMs: expect.any(Number) });
    expect(ended.at(-1)).not.toHaveProperty('httpStatus');
  });

  it('stops polling when the subscriber socket drops without a close', async () => {
    const socket = new WebSocket(`${stack.url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
    const messages: Array<{ type: string }> = [];
    socket.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString('utf8')) as { type: string }));
    await new Promise((resolve) => socket.once('open', resolve));
    socket.send(JSON.stringify({ type: 'connection_init', payload: LA_TERRAZZA }));
    expect(await eventually(() => messages.some((m) => m.type === 'connection_ack'))).toBe(true);
    socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: LIVE_DAY, variables: { date: DATE } } }));
    expect(await eventually(() => messages.some((m) => m.type === 'next'))).toBe(true);
    socket.terminate();
    expect(await eventually(async () => (await metric('tablegraph_live_subscriptions')) === 0)).toBe(true);
    const after = upstreams.listCalls(A_TOKEN);
    subscribe(connect(BISTRO_NORD), { date: DATE });
    await pollsPass(B_TOKEN, 5);
    expect(upstreams.listCalls(A_TOKEN) - after).toBeLessThanOrEqual(1);
  });

  it('refuses at subscribe what a query would be refused: a document over MAX_UPSTREAM_CALLS, a query over the WebSocket', async () => {
    const client = connect();
    const costly = subscribe(client, { date: DATE }, `subscription { reservations(date: "${DATE}", perPage: 100) { nodes { check { id } } } }`);
    const query = subscribe(client, {}, `query { reservations(date: "${DATE}") { nodes { id } } }`);
    expect(await eventually(() => costly.error !== undefined && query.error !== undefined)).toBe(true);
    expect(costly.error).toEqual([expect.objectContaining({ message: expect.stringContaining('MAX_UPSTREAM_CALLS') })]);
    // As an HTTP answer has it: the code, without the status hint the refusal carries for Apollo.
    expect(costly.error).toEqual([expect.objectContaining({ extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } })]);
    expect(query.error).toEqual([expect.objectContaining({ extensions: { code: 'BAD_REQUEST' } })]);
    const broken = subscribe(client, {}, 'subscription { reservations(');
    const tooDeep = subscribe(client, { date: DATE }, `subscription($date: Date!) { reservations(date: $date) { nodes { customer { id } check { id customer { id accountDetail { checksCount } } } } } }`);
    expect(await eventually(() => broken.error !== undefined && tooDeep.error !== undefined)).toBe(true);
    expect(broken.error).toEqual([expect.objectContaining({ extensions: { code: 'GRAPHQL_PARSE_FAILED' } })]);
    expect(tooDeep.error).toEqual([expect.objectContaining({ message: 'Query depth limit of 5 exceeded, found 6.', extensions: expect.objectContaining({ code: 'GRAPHQL_VALIDATION_FAILED' }) })]);
  });

  it('refuses a subscription sent over HTTP', async () => {
    const res = await stack.gql(LIVE_DAY, { date: DATE });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ extensions: { code: 'BAD_REQUEST' } })]);
    expect(res.body.errors![0].message).toContain('WebSocket');
  });

  it("serves Apollo Client's GraphQLWsLink, split from its HttpLink as docs/clients.md shows", async () => {
    const wsClient = createClient({ url: `${stack.url.replace('http', 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: () => LA_TERRAZZA, retryAttempts: 0 });
    clients.push(wsClient);
    const link = ApolloLink.split(
      ({ query }) => {
        const definition = getMainDefinition(query);
        return definition.kind === Kind.OPERATION_DEFINITION && definition.operation === OperationTypeNode.SUBSCRIPTION;
      },
      new GraphQLWsLink(wsClient),
      new HttpLink({ uri: `${stack.url}/graphql`, headers: LA_TERRAZZA }),
    );
    const apollo = new ApolloClient({ link, cache: new InMemoryCache() });
    const first = await new Promise<unknown>((resolve, reject) => {
      const subscription = apollo.subscribe({ query: gql(LIVE_DAY), variables: { date: DATE } }).subscribe({
        next: (result) => {
          subscription.unsubscribe();
          resolve(result.data);
        },
        error: reject,
      });
    });
    expect(first).toMatchObject({ reservations: { nodes: [{ id: reservationIdOf(A_TOKEN), status: 'confirmed' }] } });
    const viaHttp = await apollo.query({ query: gql(`query Day($date: Date!) { reservations(date: $date) { nodes { id } } }`), variables: { date: DATE } });
    expect(viaHttp.data).toMatchObject({ reservations: { nodes: [{ id: reservationIdOf(A_TOKEN) }] } });
    expect(upstreams.reservation.requests.some((r) => r.url.includes('per_page=50'))).toBe(true);
    apollo.stop();
  });
});

describe('live subscriptions with trusted documents enforced', () => {
  let enforced: Stack;

  beforeAll(async () => {
    enforced = await startStack({
      env: { RESERVATION_BASE_URL: upstreams.reservation.url, POS_BASE_URL: upstreams.pos.url, LIVE_POLL_SECONDS: '0.1', TRUSTED_DOCUMENTS: MANIFEST_PATH, TRUSTED_DOCUMENTS_MODE: 'enforce' },
    });
  });

  afterAll(async () => {
    await disposeAll();
    await enforced.close();
  });

  it('runs the manifest subscription named by id, and refuses document text or an unknown id', async () => {
    const client = liveClient(enforced.url, LA_TERRAZZA);
    clients.push(client);
    const { id } = operation('LiveDayView');
    const byId = subscribe(client, { date: DATE }, { extensions: { persistedQuery: { version: 1, sha256Hash: id } } });
    const unknown = subscribe(client, { date: DATE }, { extensions: { persistedQuery: { version: 1, sha256Hash: '0'.repeat(64) } } });
    const text = subscribe(client, { date: DATE });
    expect(await eventually(() => byId.events.length === 1 && text.error !== undefined && unknown.error !== undefined)).toBe(true);
    expect(byId.events[0].data?.reservations?.nodes[0]).toMatchObject({ id: reservationIdOf(A_TOKEN), __typename: 'Reservation' });
    expect(text.error).toEqual([expect.objectContaining({ extensions: { code: 'PERSISTED_QUERY_NOT_IN_LIST' } })]);
    expect(unknown.error).toEqual([expect.objectContaining({ extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } })]);
  });

  it('refuses the trusted subscription sent by id over HTTP', async () => {
    const res = await post(enforced, { documentId: operation('LiveDayView').id, variables: { date: DATE } });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ extensions: { code: 'BAD_REQUEST' } })]);
  });
});

describe('live subscriptions with a clients file', () => {
  const KEYS = { acme: 'acme-live-key-1', frugal: 'frugal-live-key-2' };
  let policed: Stack;

  beforeAll(async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'tablegraph-live-clients-')), 'clients.yaml');
    writeFileSync(
      file,
      `clients:
  - name: acme
    audience: partner
    keySha256: ${sha256Hex(KEYS.acme)}
  - name: frugal
    audience: partner
    keySha256: ${sha256Hex(KEYS.frugal)}
    policy: { maxCost: 15 }
`,
    );
    policed = await startStack({ env: { RESERVATION_BASE_URL: upstreams.reservation.url, POS_BASE_URL: upstreams.pos.url, LIVE_POLL_SECONDS: '0.1', CLIENTS_FILE: file } });
  });

  afterAll(async () => {
    await disposeAll();
    await policed.close();
  });

  const as = (headers: Record<string, string>) => {
    const client = liveClient(policed.url, headers);
    clients.push(client);
    return subscribe(client, { date: DATE });
  };

  it('identifies the client from connection_init as from HTTP headers, and applies its policy at subscribe', async () => {
    const nobody = as(LA_TERRAZZA);
    const stranger = as({ ...LA_TERRAZZA, 'X-Api-Key': 'not-a-known-key' });
    const frugal = as({ ...LA_TERRAZZA, 'X-Api-Key': KEYS.frugal });
    const acme = as({ ...LA_TERRAZZA, 'X-Api-Key': KEYS.acme });
    expect(await eventually(() => [nobody, stranger, frugal].every((s) => s.error !== undefined) && acme.events.length === 1)).toBe(true);
    expect(nobody.error).toEqual([expect.objectContaining({ extensions: { code: 'UNAUTHENTICATED' } })]);
    expect(stranger.error).toEqual([expect.objectContaining({ message: 'The X-Api-Key is not known', extensions: { code: 'UNAUTHENTICATED' } })]);
    expect(frugal.error).toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: 'COST_ESTIMATED_TOO_EXPENSIVE' }) })]);
    expect(frugal.error).not.toEqual([expect.objectContaining({ extensions: expect.objectContaining({ http: expect.anything() }) })]);
    acme.unsubscribe();
    const ended = async () => policed.logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'graphql request' && l.client === 'acme');
    expect(await eventually(async () => (await ended()) !== undefined)).toBe(true);
    // The record the admission filled: the client, and the estimate of one read the cost model admitted (a day of 10 with their checks).
    expect(await ended()).toMatchObject({ client: 'acme', clientAudience: 'partner', events: 1, estimatedUpstreamCalls: '11' });
  });
});
