import type { Server } from 'node:http';
import {
  execute,
  getOperationAST,
  GraphQLError,
  Kind,
  OperationTypeNode,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type FormattedExecutionResult,
  type GraphQLFormattedError,
  type OperationDefinitionNode,
} from 'graphql';
import { getVariableValues } from 'graphql/execution/values';
import type { SubscribePayload } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { LRUCache } from 'lru-cache';
import { WebSocketServer } from 'ws';
import type { Execution } from '../apolloServer';
import type { Config } from '../config';
import type { ContextRequest, GatewayContext } from '../context';
import { callerHash, credentialSpellingConflict } from '../credentials';
import { ErrorCode } from '../errors/codes';
import type { GraphqlRequest, GraphqlResponse, GraphqlStep } from '../pipeline/types';
import { operationsOfBody } from '../http/operationRequests';
import { createRequestRecord, recordLogFields, type RequestRecord } from '../pipeline/record';
import { canonicalJson } from '../idempotency/idempotencyStep';
import { estimateCost } from '../limits/costEstimate';
import { judgeCost, type ClientCostPolicy } from '../limits/costLimit';
import type { Logger } from '../logger';
import type { GatewayMetrics } from '../observability/metrics';
import type { RedisConnection } from '../redis/connection';
import { sha256Hex } from '../sha256';
import { upstreamCallCount } from '../upstreams/events';
import { LivePolls, liveMetrics, redisCoordinator, type PollRun } from './polls';

export interface LiveServerOptions {
  /** The gateway's HTTP server: the WebSocket is upgraded from its `/graphql`. */
  server: Server;
  /** The schema, the document limits requests get (applied at subscribe) and the `formatError` of HTTP responses. */
  execution: Pick<Execution, 'schema' | 'documentRules' | 'formatError'>;
  /** MAX_UPSTREAM_CALLS and MAX_COST (judged at subscribe on one read's estimate), MAX_BODY_BYTES per message, LIVE_*. */
  config: Pick<Config, 'limits' | 'live'>;
  /** The HTTP route's policies that decide on the caller and the document (client identity and budgets, trusted documents). */
  steps: readonly GraphqlStep[];
  /** The client cost policy, when a clients file is loaded. */
  cost?: ClientCostPolicy;
  /** A fresh per-read context, as for one HTTP request. */
  context(request: ContextRequest): GatewayContext;
  redis?: RedisConnection;
  logger: Logger;
  metrics: GatewayMetrics;
}

/** How long clients have to answer the close frame (1001) before their sockets are cut. */
const CLOSE_GRACE_MS = 1000;

/** One admitted subscription, handed from `onSubscribe` to `subscribe` as the execution's context value. */
interface LiveTicket {
  readonly key: string;
  readonly record: RequestRecord;
  readonly document: DocumentNode;
  readonly operationName: string | undefined;
  readonly run: () => Promise<PollRun>;
  readonly started: number;
}

/**
 * Live subscriptions on the gateway's port and path (CONTRACT.md, "Live subscriptions"): graphql-ws over `ws`. Each
 * subscription is admitted as an HTTP request with the connection's headers would be, then becomes a subscriber of
 * the shared poll of its key, which runs its selection as a query through the gateway's executor.
 */
export function liveServer(options: LiveServerOptions): { close(): Promise<void> } {
  const { logger, config } = options;
  const { schema, formatError, documentRules } = options.execution;
  const { maxSubscriptionsPerConnection: maxPerConnection, pollMs } = config.live;
  const metrics = liveMetrics(options.metrics.registry);
  const coordinator = options.redis && redisCoordinator(options.redis, pollMs);
  const polls = new LivePolls({ intervalMs: pollMs, maxPolls: config.live.maxPolls, maxPollsPerClient: config.live.maxPollsPerClient, logger, metrics, coordinator });
  const rules = [...specifiedRules, ...documentRules.validationRules];

  // Parsed and validated documents by text: screens subscribe with the same few documents, often all at once.
  const prepared = new LRUCache<string, DocumentNode | readonly GraphQLError[]>({ max: 200 });
  function prepare(text: string): DocumentNode | readonly GraphQLError[] {
    let found = prepared.get(text);
    if (found) return found;
    try {
      const document = parse(text, documentRules.parseOptions);
      const invalid = validate(schema, document, rules);
      found = invalid.length > 0 ? invalid.map((e) => new GraphQLError(e.message, { nodes: e.nodes, extensions: { ...e.extensions, code: 'GRAPHQL_VALIDATION_FAILED' } })) : document;
    } catch (err) {
      found = [new GraphQLError(err instanceof GraphQLError ? err.message : 'The document could not be parsed', { extensions: { code: 'GRAPHQL_PARSE_FAILED' } })];
    }
    prepared.set(text, found);
    return found;
  }

  /**
   * Runs one subscribe message through the same policies as an HTTP POST of the same body with the connection's
   * headers, read by the route's reader: it is admitted, or refused with the errors an HTTP client would read.
   */
  async function admit(headers: Record<string, string>, payload: SubscribePayload): Promise<LiveTicket | readonly GraphQLError[]> {
    // graphql-ws requires a string query: a document named by id comes with an empty one.
    const { query: _empty, ...rest } = payload;
    const read = operationsOfBody(payload.query === '' ? rest : payload);
    const [op] = read.operations;
    // One credential header under both spellings with different values: refused as over HTTP.
    const conflict = credentialSpellingConflict((name) => headers[name]);
    if (conflict !== undefined) return [new GraphQLError(conflict, { extensions: { code: ErrorCode.BAD_USER_INPUT } })];
    if (!op?.wellFormed) return [new GraphQLError('The subscribe message is not a GraphQL request', { extensions: { code: 'BAD_REQUEST' } })];
    const header = (name: string) => headers[name];
    const request: GraphqlRequest = {
      method: 'POST',
      url: new URL('http://gateway.invalid/graphql'),
      header,
      incomingHeaders: headers,
      read,
      record: createRequestRecord(headers['x-request-id']),
      // The steps decide on the caller and the document; each poll read builds its own context.
      context: () => Promise.reject(new Error('live: the admission steps execute nothing')),
    };
    let admitted = false;
    const pass = (): Promise<GraphqlResponse> => {
      admitted = true;
      return Promise.resolve({ status: 200, headers: new Map(), body: '' });
    };
    const response = await options.steps.reduceRight<() => Promise<GraphqlResponse>>((next, step) => () => step(request, next), pass)();
    if (!admitted) return errorsOf(response.body);
    // The steps may have turned a trusted id into its text. An id they do not know, with no text: what Apollo
    // answers an unknown persisted query.
    const text = op.query;
    if (!text) return [new GraphQLError('PersistedQueryNotFound', { extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } })];
    const document = prepare(text);
    if (!('kind' in document)) return document;
    const operation = getOperationAST(document, payload.operationName);
    if (operation?.operation !== OperationTypeNode.SUBSCRIPTION) {
      return [new GraphQLError('Send queries and mutations over HTTP; the WebSocket carries subscriptions only', { extensions: { code: 'BAD_REQUEST' } })];
    }
    // A poll runs the selection as a query over the same root field (Query.reservations).
    const asQuery: OperationDefinitionNode = { ...operation, operation: OperationTypeNode.QUERY };
    const fragments = document.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION);
    const query = { document: { kind: Kind.DOCUMENT, definitions: [asQuery, ...fragments] }, operation: asQuery } as const;
    const variables = getVariableValues(schema, asQuery.variableDefinitions ?? [], payload.variables ?? {});
    if (variables.errors) return variables.errors.map((e) => new GraphQLError(e.message, { extensions: { code: ErrorCode.BAD_USER_INPUT } }));
    // Each read is judged as the query it runs, by the one cost model of HTTP requests.
    const estimate = estimateCost({ schema, ...query, variables: variables.coerced });
    const refused = judgeCost(config.limits, options.cost, request.record, estimate);
    if (refused) return [refused];
    // Subscribers that may share one read: the same credentials, document (text and operation name) and variables
    // (coerced, keys sorted). Hashes only: no credential is kept in a key or sent to Redis.
    const key = sha256Hex(`${callerHash(header)}\n${sha256Hex(`${operation.name?.value ?? ''}\n${text}`)}\n${canonicalJson(variables.coerced)}`);
    // A poll serves every subscriber of its key: it reads fresh (joining reads in flight), whatever staleness the
    // first subscriber's Cache-Control allowed.
    const pollHeader = (name: string) => (name === 'cache-control' ? undefined : header(name));
    const run = async (): Promise<PollRun> => {
      const contextValue = options.context({ header: pollHeader, record: createRequestRecord(undefined) });
      const result = await execute({ schema, document: query.document, variableValues: payload.variables ?? {}, contextValue });
      const formatted: FormattedExecutionResult = { data: result.data };
      if (result.errors) formatted.errors = result.errors.map((e) => formatError(e.toJSON(), e));
      return { result: formatted, upstreamCalls: upstreamCallCount(contextValue.upstreamCalls) };
    };
    return { key, record: request.record, document, operationName: operation.name?.value, run, started: performance.now() };
  }

  const refused = (operationName: string | undefined | null, errors: readonly GraphQLError[]) => {
    const errorCodes = errors.map((e) => (typeof e.extensions.code === 'string' ? e.extensions.code : 'GRAPHQL_VALIDATION_FAILED'));
    logger.info({ operationName: operationName ?? null, errorCodes }, 'live subscription refused');
    return errors;
  };

  const wss = new WebSocketServer({ server: options.server, path: '/graphql', maxPayload: config.limits.maxBodyBytes });
  const cleanup = useServer(
    {
      schema,
      async onSubscribe(ctx, _id, payload): Promise<ExecutionArgs | readonly GraphQLError[]> {
        // graphql-ws counts this subscription among the connection's before asking.
        if (Object.keys(ctx.subscriptions).length > maxPerConnection) {
          const message = `A connection may hold at most ${maxPerConnection} subscriptions (LIVE_MAX_SUBSCRIPTIONS_PER_CONNECTION); complete one first or open another connection`;
          return refused(payload.operationName, [new GraphQLError(message, { extensions: { code: ErrorCode.RATE_LIMITED } })]);
        }
        const headers: Record<string, string> = {};
        // The headers of a WebSocket's requests: the string properties of its `connection_init` payload.
        for (const [name, value] of Object.entries(ctx.connectionParams ?? {})) if (typeof value === 'string') headers[name.toLowerCase()] = value;
        const ticket = await admit(headers, payload).catch((err: unknown) => {
          logger.error({ err }, 'live: admitting a subscription failed');
          return [new GraphQLError('Internal server error', { extensions: { code: ErrorCode.INTERNAL_SERVER_ERROR } })];
        });
        if (!('key' in ticket)) return refused(payload.operationName, ticket);
        return { schema, document: ticket.document, operationName: ticket.operationName, contextValue: ticket };
      },
      subscribe(args) {
        const ticket = args.contextValue as LiveTicket;
        metrics.open.inc();
        const subscriber = polls.subscribe(ticket.key, ticket.run, ({ events, upstreamCalls }) => {
          metrics.open.dec();
          // Never a credential: the client's name, the document's hash, and what the subscription cost.
          const { requestId } = ticket.record;
          const durationMs = Math.round(performance.now() - ticket.started);
          logger.info({ ...recordLogFields(ticket.record), requestId, operationName: ticket.operationName ?? null, durationMs, events, upstreamCalls }, 'live subscription ended');
        });
        // Events carry errors already formatted (as HTTP answers them): onNext sends them as they are.
        return subscriber as AsyncIterable<FormattedExecutionResult> as AsyncIterable<ExecutionResult>;
      },
      // Refusals at subscribe are formatted as HTTP formats them (limits named as limits, unexpected errors masked).
      onError: (_ctx, _id, _payload, errors) => errors.map((e) => formatError(withoutHttp(e.toJSON()), e)),
      // Without this graphql-ws would call toJSON on each error, which a formatted error has not.
      onNext: (_ctx, _id, _payload, _args, result) => result as FormattedExecutionResult,
    },
    wss,
  );

  return {
    /** Closes every WebSocket with 1001 (going away) and stops the polls. */
    async close() {
      // A client that never answers the close frame would hold the shutdown for ws's 30 s close timeout.
      const grace = setTimeout(() => {
        for (const socket of wss.clients) socket.terminate();
      }, CLOSE_GRACE_MS);
      await cleanup.dispose();
      clearTimeout(grace);
      polls.close();
    },
  };
}

/** Without `extensions.http`, the HTTP status a refusal asks for: Apollo drops it before formatting, and so do subscriptions. */
function withoutHttp(formatted: GraphQLFormattedError): GraphQLFormattedError {
  if (formatted.extensions?.http === undefined) return formatted;
  const { http: _http, ...extensions } = formatted.extensions;
  return { ...formatted, extensions };
}

/** A step's refusal (always an `errorBody`) as the errors of the subscription's error message. */
function errorsOf(body: string): GraphQLError[] {
  const { errors } = JSON.parse(body) as { errors: Array<{ message: string; extensions?: Record<string, unknown> }> };
  return errors.map((e) => new GraphQLError(e.message, { extensions: e.extensions }));
}
