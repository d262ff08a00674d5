import type { ApolloServer } from '@apollo/server';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createExecution } from './apolloServer';
import { createPersistedQueryCache, persistedQueriesStep } from './apq/cache';
import { createClientPolicies } from './clients';
import type { Config } from './config';
import { createContext, type GatewayContext, type Upstreams } from './context';
import { compiledPath } from './execution/compiledPath';
import { explorerRoute, type ExplorerOptions } from './http/explorer';
import { graphqlRoute, type GraphqlRequest } from './http/graphqlRoute';
import { cutWhileArriving, limitConnections } from './http/connectionLimits';
import { ServerLifecycle, type LifecycleState } from './http/lifecycle';
import { opsRoutes } from './http/opsRoutes';
import { errorBody, sendJson } from './http/send';
import { idempotencyFromConfig } from './idempotency';
import { liveServer } from './live/liveServer';
import type { Logger } from './logger';
import { UpstreamDeviations } from './observability/deviations';
import { GatewayMetrics } from './observability/metrics';
import { observabilityHooks } from './observability/upstreamHooks';
import { openRedisConnection } from './redis/connection';
import { createTrustedDocuments } from './trustedDocuments';
import { combineEvents, createUpstreams, loggingHooks } from './upstreams';
import { SharedReads } from './upstreams/sharedReads';

export interface GatewayDeps {
  config: Config;
  logger: Logger;
  /** Defaults to undici pools on the configured base addresses. */
  upstreams?: Upstreams;
  /** The clock of the upstream policies (circuit breakers, retry budgets), in ms. Default Date.now. */
  upstreamClock?: () => number;
  /** Defaults to a new registry of this gateway's own. */
  metrics?: GatewayMetrics;
  /** Defaults to the process's own from the settings, sharing marks through Redis when REDIS_URL is set. */
  sharedReads?: SharedReads;
  /** What the browser explorer pre-fills (outside production). Default: the day query, no headers. */
  explorer?: Omit<ExplorerOptions, 'enabled'>;
}

export interface Gateway {
  /** The HTTP server, not listening: the caller decides where (tests use port 0). */
  readonly server: Server;
  readonly apollo: ApolloServer<GatewayContext>;
  /** Whether /readyz answers 200: after start(), until drain() begins. */
  readonly ready: boolean;
  readonly state: LifecycleState;
  readonly metrics: GatewayMetrics;
  start(): Promise<void>;
  /** Readiness turns 503 while the gateway keeps serving (the shutdown delay, so load balancers move away). */
  drain(): void;
  /**
   * Readiness turns 503; the listener closes; in-flight requests finish (cut after DRAIN_TIMEOUT_MS); keep-alive
   * connections close; upstream pools close.
   */
  stop(): Promise<void>;
}

/** Builds the gateway (Apollo server and HTTP routes) without listening. */
export function createGateway(deps: GatewayDeps): Gateway {
  const { config, logger } = deps;
  const metrics = deps.metrics ?? new GatewayMetrics();
  // One per gateway: it logs each kind of upstream deviation once (src/observability/deviations.ts).
  const deviations = new UpstreamDeviations({ logger, metrics });
  // Both listener sets hear every event: the circuit's log line and its gauge.
  const upstreams = deps.upstreams ?? createUpstreams(config, combineEvents(loggingHooks(logger), observabilityHooks(metrics, logger)), deps.upstreamClock);
  const { limits } = config;
  // The one Redis connection of this process, for every policy shared across replicas (src/redis/connection.ts).
  const redis = config.redisUrl ? openRedisConnection({ url: config.redisUrl, logger }) : undefined;
  // One per process: in-flight GETs joined, answers kept for the max-age clients ask, writes marked across replicas.
  const sharedReads =
    deps.sharedReads ??
    new SharedReads({
      maxAgeSeconds: config.upstreamCache.maxAgeSeconds,
      maxBytes: config.upstreamCache.maxBytes,
      redis,
      onRead: (key, source) => metrics.countRead(key.service, key.route, source),
    });
  const persistedQueries = createPersistedQueryCache({ maxBytes: config.persistedQueries.maxBytes, redis });
  // Client identity, rate limits and cost per client (src/clients), when CLIENTS_FILE is set; validated here, at start.
  const clients = createClientPolicies(config, { metrics, redis });
  // Trusted documents are read and validated here, so a bad manifest stops the start naming the operation.
  const trusted = createTrustedDocuments({ ...config.trustedDocuments, metrics });
  const execution = createExecution({ config, logger, persistedQueries, clientCost: clients?.cost, pinDocuments: trusted?.pin });
  const { apollo } = execution;
  const contextDeps = { config, logger, upstreams, metrics, deviations, sharedReads };
  const context = (request: GraphqlRequest) => Promise.resolve(createContext(contextDeps, request));
  // Outermost first. The client step first: identity and budgets before any other work, on the request as the
  // client sent it. Then trusted documents, which turn ids into their text; then, for clients bound to trusted
  // documents, the check that every operation came by a manifest id (not an APQ hash). Subscriptions pass these too
  // (src/live/scope.ts).
  const admission = [...(clients ? [clients.step] : []), ...(trusted ? [trusted.step] : []), ...(clients ? [clients.trustedOnlyStep] : [])];

  const lifecycle = new ServerLifecycle();
  const graphql = graphqlRoute({
    apollo,
    limits,
    logger,
    metrics,
    context,
    // Compiled operations (trusted documents, repeated texts) skip Apollo's per-request work.
    compiled: execution.compiled
      ? compiledPath({
          operations: execution.compiled,
          limits: { maxUpstreamCalls: limits.maxUpstreamCalls, maxCost: limits.maxCost },
          clients,
        })
      : undefined,
    // Then the APQ hashes turned into their text (no subscription's text is ever registered: Apollo registers a text
    // once it has resolved the operation, after subscriptionsOverHttpPlugin refused it). Then idempotency, which so
    // sees every mutation's text, however it was named.
    steps: [...admission, persistedQueriesStep(persistedQueries), idempotencyFromConfig({ config, logger, metrics, redis })],
  });
  const explorer = explorerRoute({ ...deps.explorer, enabled: config.env !== 'production' });
  const server = createServer((req, res) => {
    lifecycle.track(res);
    // The /graphql route records and answers its own failures; what reaches here failed outside it.
    route(req, res).catch((err: unknown) => {
      if (cutWhileArriving(req, err)) return logger.debug('connection closed before its request arrived');
      logger.error({ err }, 'request handling failed');
      if (!res.headersSent) sendJson(res, 500, errorBody('Internal server error', 'INTERNAL_SERVER_ERROR'));
      else res.destroy();
    });
  });
  limitConnections(server, config.connectionLimits);
  const live = liveServer({
    server,
    schema: execution.schema,
    ...execution.documentRules,
    formatError: execution.formatError,
    maxUpstreamCalls: limits.maxUpstreamCalls,
    maxSubscriptionsPerConnection: config.live.maxSubscriptionsPerConnection,
    pollMs: config.live.pollMs,
    maxPayloadBytes: limits.maxBodyBytes,
    maxCost: limits.maxCost,
    steps: admission,
    cost: clients?.cost,
    // A fresh context per read, as for one HTTP request: the breaker, budgets, field errors and shared reads apply.
    context: (request) => createContext(contextDeps, request),
    redis,
    logger,
    metrics,
  });

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://gateway.invalid');
    if (await opsRoutes(req, res, url.pathname, { lifecycle, metrics })) return;
    if (await explorer(req, res, url)) return;
    if (url.pathname === '/graphql') return graphql(req, res, url);
    sendJson(res, 404, { error: 'Not found' });
  }

  return {
    server,
    apollo,
    metrics,
    get ready() {
      return lifecycle.ready;
    },
    get state() {
      return lifecycle.state;
    },
    async start() {
      await apollo.start();
      lifecycle.markReady();
    },
    drain() {
      lifecycle.markDraining();
    },
    async stop() {
      const drained = lifecycle.drain(server, config.drainTimeoutMs);
      // WebSockets hold the listener open: they close with 1001 once the HTTP requests in flight have finished.
      await lifecycle.idle();
      await live.close();
      const { cut } = await drained;
      if (cut > 0) logger.warn({ requests: cut, drainTimeoutMs: config.drainTimeoutMs }, 'drain timeout passed: cut the requests still in flight');
      await apollo.stop();
      await Promise.all([upstreams.reservation.close(), upstreams.pos.close(), redis?.close()]);
    },
  };
}
