import type { FormattedExecutionResult } from 'graphql';
import { ApolloClient, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { createClient as createSseClient, type RequestParams } from 'graphql-sse';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { randomUUID } from 'node:crypto';
import { reservationRecord, pageMeta, checkRecord } from './fixtures';
import { sendJson, startScriptedServer, type ScriptedServer } from './upstreamServer';

export const LIVE_DAY = `subscription LiveDay($date: Date!) { reservations(date: $date, perPage: 10) { nodes { id status check { id status } } } }`;

export interface LiveData {
  reservations: { nodes: Array<{ id: string; status: string | null; check: { id: string; status: string | null } | null }> } | null;
}

/** One subscription as a graphql-ws client sees it: every event, the error message if any, and whether it completed. */
export interface LiveSubscription {
  events: Array<FormattedExecutionResult<LiveData>>;
  /** The error message's errors, or what closed the socket. */
  error?: unknown;
  completed: boolean;
  unsubscribe(): void;
}

/** A graphql-ws client over `ws` with `headers` as its connection_init payload; no retries, so a close is seen as it is. */
export function liveClient(httpUrl: string, headers: Record<string, string>): Client & { closeCodes: number[] } {
  const closeCodes: number[] = [];
  const client = createClient({
    url: `${httpUrl.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: headers,
    retryAttempts: 0,
    lazy: false,
    on: { closed: (event) => closeCodes.push((event as { code: number }).code) },
    onNonLazyError: () => undefined,
  });
  return Object.assign(client, { closeCodes });
}

/** Subscribes with `query` as the document text, or with `extensions` alone to name a trusted document by id. */
export function subscribe(client: Client, variables: Record<string, unknown>, query: string | { extensions: Record<string, unknown> } = LIVE_DAY): LiveSubscription {
  const subscription: LiveSubscription = {
    events: [],
    completed: false,
    unsubscribe: () => undefined,
  };
  subscription.unsubscribe = client.subscribe<LiveData>(
    typeof query === 'string' ? { query, variables } : { query: '', variables, extensions: query.extensions },
    {
      next: (event) => subscription.events.push(event as FormattedExecutionResult<LiveData>),
      error: (error) => (subscription.error = error),
      complete: () => (subscription.completed = true),
    },
  );
  return subscription;
}

/** What the fake reservation service answers: per access token, so two venues' data never look alike. */
export interface LiveUpstreams {
  reservation: ScriptedServer;
  pos: ScriptedServer;
  /** The reservation's status the list answers; change it to make a change. */
  status: string;
  /** The POS check's status. */
  checkStatus: string;
  /** `ok`, or the HTTP status the list answers with instead. */
  fail: 'ok' | 500 | 401;
  /** How long the list waits before answering a request to `url` (default: no wait). */
  delayMs: (url: string) => number;
  /** List calls made with `token` as Reservation-Access-Token. */
  listCalls(token: string): number;
  close(): Promise<void>;
}

/** The reservation id the fake service lists for a token: the same on every read, different per venue. */
export function reservationIdOf(token: string): string {
  const hex = Buffer.from(token.padEnd(16, '.')).toString('hex').slice(0, 32);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export async function startLiveUpstreams(): Promise<LiveUpstreams> {
  const checkId = randomUUID();
  const records = new Map<string, ReturnType<typeof reservationRecord>>();
  const state = { status: 'confirmed', checkStatus: 'open', fail: 'ok' as LiveUpstreams['fail'], delayMs: (_url: string) => 0 };
  const reservation = await startScriptedServer((req, res) => {
    const answer = () => {
      if (state.fail !== 'ok') return sendJson(res, state.fail, { errors: [{ message: 'refused', code: state.fail }] });
      const token = String(req.headers['reservation-access-token'] ?? '');
      // One record per venue, made once: the fixture draws new ids for nested records (the customer's among them),
      // and a read that differs from the last is a live event the test did not make.
      let record = records.get(token);
      if (!record) records.set(token, (record = reservationRecord({ id: reservationIdOf(token), check: { id: checkId } })));
      sendJson(res, 200, { reservations: [{ ...record, status: state.status }], meta: pageMeta() });
    };
    const wait = state.delayMs(req.url ?? '');
    if (wait > 0) setTimeout(answer, wait);
    else answer();
  });
  const check = checkRecord({ id: checkId });
  const pos = await startScriptedServer((_req, res) => sendJson(res, 200, { ...check, status: state.checkStatus }));
  const upstreams: LiveUpstreams = Object.assign(state, {
    reservation,
    pos,
    listCalls: (token: string) => reservation.requests.filter((r) => r.url.startsWith('/v1/reservations') && r.headers['reservation-access-token'] === token).length,
    close: async () => {
      await reservation.close();
      await pos.close();
    },
  });
  return upstreams;
}

/** Subscribes over Server-Sent Events with graphql-sse's own client (distinct connections), `headers` as HTTP headers. */
export function sseSubscribe(httpUrl: string, headers: Record<string, string>, payload: Record<string, unknown>): LiveSubscription {
  const client = createSseClient({ url: `${httpUrl}/graphql`, headers, singleConnection: false, retryAttempts: 0 });
  const subscription: LiveSubscription = { events: [], completed: false, unsubscribe: () => undefined };
  const dispose = client.subscribe<LiveData>(payload as unknown as RequestParams, {
    next: (event) => subscription.events.push(event as FormattedExecutionResult<LiveData>),
    error: (error) => (subscription.error = error),
    complete: () => (subscription.completed = true),
  });
  subscription.unsubscribe = () => {
    dispose();
    client.dispose();
  };
  return subscription;
}

/**
 * Subscribes over Apollo's multipart HTTP subscriptions with Apollo Client's plain `HttpLink` (no WebSocket, no split).
 * `documentId`: the document is named by trusted id instead of sent as text (a fetch that rewrites the body).
 */
export function multipartSubscribe(httpUrl: string, headers: Record<string, string>, query: string, variables: Record<string, unknown>, documentId?: string): LiveSubscription {
  const byId: typeof fetch = (input, init) => {
    const body = JSON.parse(init?.body as string) as Record<string, unknown>;
    delete body.query;
    return fetch(input, { ...init, body: JSON.stringify({ ...body, documentId }) });
  };
  const apollo = new ApolloClient({ link: new HttpLink({ uri: `${httpUrl}/graphql`, headers, ...(documentId ? { fetch: byId } : {}) }), cache: new InMemoryCache() });
  const subscription: LiveSubscription = { events: [], completed: false, unsubscribe: () => undefined };
  const handle = apollo.subscribe<LiveData>({ query: gql(query), variables }).subscribe({
    next: (result) => subscription.events.push({ data: result.data, ...(result.error ? { errors: [{ message: result.error.message }] } : {}) }),
    error: (error: unknown) => (subscription.error = error),
    complete: () => (subscription.completed = true),
  });
  subscription.unsubscribe = () => {
    handle.unsubscribe();
    apollo.stop();
  };
  return subscription;
}
