import { HeaderMap, type ApolloServerPlugin, type GraphQLRequest, type GraphQLResponse } from '@apollo/server';
import { GraphQLError, Kind, OperationTypeNode, print, type FormattedExecutionResult, type GraphQLFormattedError, type OperationDefinitionNode } from 'graphql';
import type { ClientBudgets } from '../clients/budgets';
import type { Config } from '../config';
import type { ContextRequest, GatewayContext } from '../context';
import { ALL_CREDENTIAL_HEADERS, callerHash } from '../credentials';
import { ErrorCode } from '../errors/codes';
import { SENT_AS_GET, subscriptionWire } from '../http/transports/accept';
import { canonicalJson } from '../idempotency/idempotencyStep';
import { coerceVariables } from '../limits/costLimit';
import type { Logger } from '../logger';
import type { GatewayMetrics } from '../observability/metrics';
import { outsideTraces } from '../observability/tracing';
import { createRequestRecord, type RequestRecord } from '../pipeline/record';
import type { StreamResult } from '../pipeline/stream';
import { ending } from '../pipeline/streamEnd';
import type { RedisConnection } from '../redis/connection';
import { sha256Hex } from '../sha256';
import { upstreamCallCount } from '../upstreams/events';
import { LivePollRefused, LivePolls, liveMetrics, redisCoordinator, type LiveSubscriber, type PollOwner, type PollRun } from './polls';

export interface LiveSubscriptionsOptions {
  /** Runs one poll read as a query through Apollo: its document store, its plugins and the gateway's executor (graphql-jit once compiled). */
  execute(request: GraphQLRequest, contextValue: GatewayContext): Promise<GraphQLResponse>;
  /** A fresh context for one poll read, as for one HTTP request. */
  context(request: ContextRequest): GatewayContext;
  /** The `formatError` of every answer: refusals at subscribe are worded as HTTP words them. */
  formatError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError;
  /** The client budgets (with a clients file): each poll read is charged to its subscribers' upstream-call budgets. */
  budgets?: Pick<ClientBudgets, 'charge'>;
  /** LIVE_POLL_SECONDS. */
  config: Pick<Config, 'live'>;
  /** With it, one poll per key across replicas. */
  redis?: RedisConnection;
  logger: Logger;
  metrics: GatewayMetrics;
}

const SUBSCRIPTION = OperationTypeNode.SUBSCRIPTION;

/**
 * Live subscriptions as operations of the one pipeline (CONTRACT.md, "Live subscriptions"). A subscription is read,
 * admitted, parsed, validated and costed as any request; then, instead of executing, it becomes a subscriber of the
 * shared poll of its key (credentials, document, variables), whose events the executor hands the route as a stream
 * (`context.answer`) for the transport to write. Each poll read runs the subscription's selection as a query through
 * Apollo again, with a context built from the credential headers alone.
 */
export function liveSubscriptions(options: LiveSubscriptionsOptions): { plugin: ApolloServerPlugin<GatewayContext>; close(): void } {
  const { pollMs, maxPolls, maxPollsPerClient } = options.config.live;
  const metrics = liveMetrics(options.metrics.registry);
  const coordinator = options.redis && redisCoordinator(options.redis, pollMs);
  const polls = new LivePolls({ intervalMs: pollMs, maxPolls, maxPollsPerClient, logger: options.logger, metrics, coordinator });

  const refused = (status: number, errors: readonly GraphQLError[]): GraphQLResponse => ({
    http: { status, headers: new HeaderMap() },
    body: { kind: 'single', singleResult: { errors: errors.map((e) => options.formatError(e.toJSON(), e)) } },
  });

  const plugin: ApolloServerPlugin<GatewayContext> = {
    async requestDidStart({ contextValue, request }) {
      const { record } = contextValue;
      // The WebSocket says so on the record before it asks; over HTTP the Accept header names the stream.
      const wire = record.stream?.transport ?? subscriptionWire(request.http?.headers.get('accept'));
      return {
        async didResolveOperation({ operation }) {
          if (operation?.operation === SUBSCRIPTION && !wire) {
            // Refused before anything executes: executed once like a query, its field would answer null.
            throw new GraphQLError(
              'Subscriptions need a stream: the WebSocket on /graphql (graphql-ws), Server-Sent Events (Accept: text/event-stream) or multipart HTTP (Accept: multipart/mixed;subscriptionSpec="1.0")',
              { extensions: { code: 'BAD_REQUEST', http: { status: 400 } } },
            );
          }
          if (operation?.operation === OperationTypeNode.MUTATION && request.http?.headers.get(SENT_AS_GET)) {
            throw new GraphQLError('GET requests only support query and subscription operations, not mutation operations', {
              extensions: { code: 'BAD_REQUEST', http: { status: 405, headers: new HeaderMap([['allow', 'POST']]) } },
            });
          }
          if (operation && operation.operation !== SUBSCRIPTION && wire === 'ws') {
            throw new GraphQLError('Send queries and mutations over HTTP; the WebSocket carries subscriptions only', { extensions: { code: 'BAD_REQUEST', http: { status: 400 } } });
          }
        },
        async responseForOperation({ operation, document, schema, request: sent }) {
          if (operation?.operation !== SUBSCRIPTION || !wire) return null;
          // One stream per request: a batch's operations share one context, and a second stream would orphan the first.
          if (!contextValue.answer.streamable || contextValue.answer.stream) {
            return refused(400, [new GraphQLError('A subscription must be the only operation of its request; send each on its own', { extensions: { code: 'BAD_REQUEST' } })]);
          }
          const variables = coerceVariables(contextValue, schema, operation, sent.variables);
          if (variables.errors) return refused(400, variables.errors.map((e) => new GraphQLError(e.message, { nodes: e.nodes, extensions: { code: ErrorCode.BAD_USER_INPUT } })));
          // A poll reads the selection as a query over the same root field (Query.reservations).
          const asQuery: OperationDefinitionNode = { ...operation, operation: OperationTypeNode.QUERY };
          const fragments = document.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION);
          const text = print({ kind: Kind.DOCUMENT, definitions: [asQuery, ...fragments] });
          const header = (name: string) => sent.http?.headers.get(name);
          // Subscribers that share one read: the same credentials, document and variables (coerced, keys sorted).
          // Hashes only: no credential is kept in a key or sent to Redis.
          const key = sha256Hex(`${callerHash(header)}\n${sha256Hex(text)}\n${canonicalJson(variables.coerced)}`);
          const run = pollRead(options, { query: text, operationName: operation.name?.value, variables: sent.variables ?? undefined }, credentialsOf(header));
          let subscriber: LiveSubscriber;
          try {
            subscriber = polls.subscribe(key, run, () => metrics.open.dec(), pollOwner(options.budgets, record));
          } catch (err) {
            if (!(err instanceof LivePollRefused)) throw err;
            return refused(429, [new GraphQLError(err.message, { extensions: { code: ErrorCode.RATE_LIMITED } })]);
          }
          metrics.open.inc();
          record.stream = { transport: wire, events: 0 };
          contextValue.answer.stream = { kind: 'subscription', results: recorded(subscriber, record) };
          return { http: { status: 200, headers: new HeaderMap() }, body: { kind: 'single', singleResult: { data: null } } };
        },
      };
    },
  };
  return { plugin, close: () => polls.close() };
}

/** What a poll sends upstream of a subscriber's headers: its credentials, never another header (tracing, cookies, agent…). */
function credentialsOf(header: (name: string) => string | undefined): (name: string) => string | undefined {
  const kept = new Map<string, string>();
  for (const name of ALL_CREDENTIAL_HEADERS) {
    const value = header(name);
    if (value !== undefined) kept.set(name, value);
  }
  return (name) => kept.get(name);
}

/** One read of a poll: its own record and context (the gateway's request id and a trace of its own), through Apollo. */
function pollRead(options: LiveSubscriptionsOptions, request: GraphQLRequest, header: (name: string) => string | undefined): () => Promise<PollRun> {
  return () =>
    // A poll serves every subscriber of its key: it continues none's trace (not even the first one's, where its timer began).
    outsideTraces(async () => {
      const record = createRequestRecord(undefined);
      // Released once read, as the route releases a request's: its deadline's timer goes with its last call.
      const response = await options.execute(request, options.context({ header, record })).finally(() => record.release?.release());
      const body = response.body.kind === 'single' ? response.body.singleResult : { errors: [{ message: 'Internal server error', extensions: { code: ErrorCode.INTERNAL_SERVER_ERROR } }] };
      const result: FormattedExecutionResult = { ...('data' in body ? { data: body.data } : {}), ...(body.errors ? { errors: body.errors } : {}) };
      return { result, upstreamCalls: upstreamCallCount(record.upstreamCalls) };
    });
}

/** The budget a poll's reads are charged to, for a client the clients file knows. */
function pollOwner(budgets: LiveSubscriptionsOptions['budgets'], record: RequestRecord): PollOwner | undefined {
  const known = record.client?.known;
  const key = record.client?.budgetKey;
  if (!budgets || !known || key === undefined) return undefined;
  return { client: `${known.name}\n${key}`, charge: async (calls) => !(await budgets.charge(known, key, calls)).spent };
}


/**
 * The subscriber's events as the transport reads them (the subscriber itself keeps only the newest one not yet taken:
 * a slow reader gets the latest snapshot, nothing piles up). Once they end (completed, left, or a final event), the
 * subscription's operation record says how it went as a whole and what its poll's reads cost while it was there.
 */
function recorded(subscriber: LiveSubscriber, record: RequestRecord): AsyncIterableIterator<StreamResult> {
  const started = performance.now();
  const codes = new Set<string>();
  let withErrors = false;
  let withData = false;
  const taken = (value: StreamResult) => {
    for (const e of value.errors ?? []) if (typeof e.extensions?.code === 'string') codes.add(e.extensions.code);
    withErrors ||= (value.errors?.length ?? 0) > 0;
    withData ||= Object.values(value.data ?? {}).some((v) => v !== null);
  };
  const end = () => {
    // Each poll read was charged to the client's budget as it was made (PollOwner.charge): not the client's again.
    if (record.stream) record.stream.upstreamCalls = subscriber.upstreamCalls;
    const op = record.operations.find((o) => o.type === SUBSCRIPTION);
    if (!op) return;
    op.durationMs = performance.now() - started;
    op.errorCodes = [...codes];
    op.outcome = !withErrors ? 'success' : withData ? 'partial' : 'error';
  };
  return ending(subscriber, end, taken);
}
