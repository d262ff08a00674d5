import { upstreamCallCount } from '../upstreams/events';
import type { Server } from 'node:http';
import {
  execute,
  getOperationAST,
  GraphQLError,
  OperationTypeNode,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type FormattedExecutionResult,
  type GraphQLFormattedError,
  type GraphQLSchema,
  type ParseOptions,
  type ValidationRule,
} from 'graphql';
import { getVariableValues } from 'graphql/execution/values';
import type { SubscribePayload } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import type { ContextRequest, GatewayContext } from '../context';
import { ErrorCode } from '../errors/codes';
import { estimateCost } from '../limits/costEstimate';
import { judgeCost, type ClientCostPolicy } from '../limits/costLimit';
import { createRequestRecord, recordLogFields } from '../http/requestRecord';
import type { Logger } from '../logger';
import type { GatewayMetrics } from '../observability/metrics';
import type { RedisConnection } from '../redis/connection';
import { LiveMetrics } from './liveMetrics';
import { LivePolls, type LiveSubscriber, type PollRun } from './polls';
import { asQuery, pollKey } from './pollQuery';
import { redisCoordinator } from './redisCoordinator';
import { headersOf, liveScope, type LiveScope, type LiveScopeOptions } from './scope';

export interface LiveServerOptions extends LiveScopeOptions {
  /** The gateway's HTTP server: the WebSocket is upgraded from its `/graphql`. */
  server: Server;
  schema: GraphQLSchema;
  /** The document limits requests get (src/limits/documentLimits.ts), applied at subscribe. */
  parseOptions: ParseOptions;
  validationRules: readonly ValidationRule[];
  /** The `formatError` of HTTP responses, for each event's errors. */
  formatError: (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError;
  /** MAX_UPSTREAM_CALLS and MAX_COST, judged at subscribe on the estimate of one read. */
  maxUpstreamCalls: number;
  maxCost: number;
  /** LIVE_MAX_SUBSCRIPTIONS_PER_CONNECTION. */
  maxSubscriptionsPerConnection: number;
  /** LIVE_POLL_SECONDS in milliseconds. */
  pollMs: number;
  /** Largest WebSocket message accepted (MAX_BODY_BYTES). */
  maxPayloadBytes: number;
  /** The client cost policy, when a clients file is loaded. */
  cost?: ClientCostPolicy;
  /** A fresh per-read context, as for one HTTP request. */
  context(request: ContextRequest): GatewayContext;
  redis?: RedisConnection;
  logger: Logger;
  metrics: GatewayMetrics;
}

export interface LiveServer {
  /** Polls running on this replica. */
  readonly polls: number;
  /** Closes every WebSocket with 1001 (going away) and stops the polls. */
  close(): Promise<void>;
}

/** How long clients have to answer the close frame (1001) before their sockets are cut. */
const CLOSE_GRACE_MS = 1000;

/** Documents kept parsed and validated; past it the oldest goes. */
const PREPARED_DOCUMENTS = 200;

/** One admitted subscription, handed from `onSubscribe` to `subscribe` as the execution's context value. */
class LiveTicket {
  subscriber?: LiveSubscriber;
  readonly started = performance.now();

  constructor(
    readonly key: string,
    readonly scope: LiveScope,
    readonly document: DocumentNode,
    readonly operationName: string | undefined,
    readonly run: () => Promise<PollRun>,
  ) {}
}

/**
 * Live subscriptions on the gateway's port and path (CONTRACT.md, "Live subscriptions"): graphql-ws over `ws`. Each
 * subscription is admitted as an HTTP request with the connection's headers would be, then becomes a subscriber of
 * the shared poll of its key, which runs its selection as a query through the gateway's executor.
 */
export function liveServer(options: LiveServerOptions): LiveServer {
  const { schema, logger, maxSubscriptionsPerConnection: maxPerConnection } = options;
  const metrics = new LiveMetrics(options.metrics.registry);
  const coordinator = options.redis ? redisCoordinator({ redis: options.redis, intervalMs: options.pollMs }) : undefined;
  const polls = new LivePolls({ intervalMs: options.pollMs, logger, metrics, coordinator });
  const rules = [...specifiedRules, ...options.validationRules];
  const limits = { maxUpstreamCalls: options.maxUpstreamCalls, maxCost: options.maxCost };
  // Per connection: its subscriptions by id, admitted or being admitted.
  const open = new WeakMap<object, Map<string, LiveTicket | undefined>>();

  // Parsed and validated documents by text: screens subscribe with the same few documents, often all at once.
  const prepared = new Map<string, DocumentNode | readonly GraphQLError[]>();
  function prepare(text: string): DocumentNode | readonly GraphQLError[] {
    let found = prepared.get(text);
    if (found) return found;
    try {
      const document = parse(text, options.parseOptions);
      const invalid = validate(schema, document, rules);
      found = invalid.length > 0 ? invalid.map((e) => new GraphQLError(e.message, { nodes: e.nodes, extensions: { ...e.extensions, code: 'GRAPHQL_VALIDATION_FAILED' } })) : document;
    } catch (err) {
      found = [new GraphQLError(err instanceof GraphQLError ? err.message : 'The document could not be parsed', { extensions: { code: 'GRAPHQL_PARSE_FAILED' } })];
    }
    if (prepared.size >= PREPARED_DOCUMENTS) prepared.delete(prepared.keys().next().value!);
    prepared.set(text, found);
    return found;
  }

  async function admit(headers: Record<string, string>, payload: SubscribePayload): Promise<LiveTicket | readonly GraphQLError[]> {
    const scope = await liveScope(options, headers, payload);
    if (!('request' in scope)) return scope;
    const document = prepare(scope.query);
    if (!('kind' in document)) return document;
    const operation = getOperationAST(document, payload.operationName);
    if (operation?.operation !== OperationTypeNode.SUBSCRIPTION) {
      return [new GraphQLError('Send queries and mutations over HTTP; the WebSocket carries subscriptions only', { extensions: { code: 'BAD_REQUEST' } })];
    }
    const query = asQuery(document, operation);
    const variables = getVariableValues(schema, query.operation.variableDefinitions ?? [], payload.variables ?? {});
    if (variables.errors) return variables.errors.map((e) => new GraphQLError(e.message, { extensions: { code: ErrorCode.BAD_USER_INPUT } }));
    // Each read is judged as the query it runs, by the one cost model of HTTP requests.
    const estimate = estimateCost({ schema, document: query.document, operation: query.operation, variables: variables.coerced });
    const refused = judgeCost(limits, options.cost, scope.request.record, estimate);
    if (refused) return [refused];
    const header = scope.request.header;
    const key = pollKey(header, scope.query, operation, variables.coerced);
    // A poll serves every subscriber of its key: it reads fresh (joining reads in flight), whatever staleness the
    // first subscriber's Cache-Control allowed.
    const pollHeader = (name: string) => (name === 'cache-control' ? undefined : header(name));
    const variableValues = payload.variables ?? {};
    const run = async (): Promise<PollRun> => {
      const contextValue = options.context({ header: pollHeader, record: createRequestRecord(undefined) });
      const result = await execute({ schema, document: query.document, variableValues, contextValue });
      const formatted: FormattedExecutionResult = { data: result.data };
      if (result.errors) formatted.errors = result.errors.map((e) => options.formatError(e.toJSON(), e));
      return { result: formatted, upstreamCalls: upstreamCallCount(contextValue.upstreamCalls) };
    };
    return new LiveTicket(key, scope, document, operation.name?.value, run);
  }

  const wss = new WebSocketServer({ server: options.server, path: '/graphql', maxPayload: options.maxPayloadBytes });
  const cleanup = useServer(
    {
      schema,
      async onSubscribe(ctx, id, payload): Promise<ExecutionArgs | readonly GraphQLError[]> {
        let mine = open.get(ctx);
        if (!mine) open.set(ctx, (mine = new Map<string, LiveTicket | undefined>()));
        if (mine.size >= maxPerConnection) {
          logger.info({ operationName: payload.operationName ?? null, errorCodes: [ErrorCode.RATE_LIMITED] }, 'live subscription refused');
          return [
            new GraphQLError(`A connection may hold at most ${maxPerConnection} subscriptions (LIVE_MAX_SUBSCRIPTIONS_PER_CONNECTION); complete one first or open another connection`, {
              extensions: { code: ErrorCode.RATE_LIMITED },
            }),
          ];
        }
        mine.set(id, undefined);
        const ticket = await admit(headersOf(ctx.connectionParams), payload).catch((err: unknown) => {
          logger.error({ err }, 'live: admitting a subscription failed');
          return [new GraphQLError('Internal server error', { extensions: { code: ErrorCode.INTERNAL_SERVER_ERROR } })];
        });
        if (!(ticket instanceof LiveTicket)) {
          mine.delete(id);
          logger.info({ operationName: payload.operationName ?? null, errorCodes: ticket.map((e) => (typeof e.extensions.code === 'string' ? e.extensions.code : 'GRAPHQL_VALIDATION_FAILED')) }, 'live subscription refused');
          return ticket;
        }
        mine.set(id, ticket);
        metrics.opened();
        return { schema, document: ticket.document, operationName: ticket.operationName, contextValue: ticket };
      },
      subscribe(args) {
        const ticket = args.contextValue;
        if (!(ticket instanceof LiveTicket)) throw new Error('live: a subscription reached execution without being admitted');
        ticket.subscriber = polls.subscribe(ticket.key, ticket.run);
        // Events carry errors already formatted (as HTTP answers them): onNext sends them as they are.
        return ticket.subscriber as AsyncIterable<FormattedExecutionResult> as AsyncIterable<ExecutionResult>;
      },
      // Refusals at subscribe are formatted as HTTP formats them (limits named as limits, unexpected errors masked).
      onError: (_ctx, _id, _payload, errors) => errors.map((e) => options.formatError(withoutHttp(e.toJSON()), e)),
      // Without this graphql-ws would call toJSON on each error, which a formatted error has not.
      onNext: (_ctx, _id, _payload, _args, result) => result as FormattedExecutionResult,
      onComplete(ctx, id) {
        const ticket = open.get(ctx)?.get(id);
        open.get(ctx)?.delete(id);
        if (!ticket) return;
        metrics.closed();
        const { record } = ticket.scope.request;
        // Never a credential: the client's name, the document's hash, and what the subscription cost.
        logger.info(
          {
            requestId: record.requestId,
            operationName: ticket.operationName ?? null,
            durationMs: Math.round(performance.now() - ticket.started),
            events: ticket.subscriber?.events ?? 0,
            upstreamCalls: ticket.subscriber?.upstreamCalls ?? 0,
            ...recordLogFields(record),
          },
          'live subscription ended',
        );
      },
    },
    wss,
  );

  return {
    get polls() {
      return polls.size;
    },
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
