import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createExecution } from './apolloServer';
import { createPersistedQueryCache, persistedQueriesStep } from './apq/cache';
import { createClientPolicies } from './clients/clientPolicyStep';
import type { Config } from './config';
import { createContext, type Upstreams } from './context';
import { compiledPath } from './execution/compiledPath';
import { explorerRoute, type ExplorerOptions } from './http/explorer';
import { graphqlRoute } from './http/graphqlRoute';
import type { GraphqlRequest } from './pipeline/types';
import { cutWhileArriving, limitConnections } from './http/connectionLimits';
import { ServerLifecycle } from './http/lifecycle';
import { opsRoutes } from './http/opsRoutes';
import { subscriptionStreamWriter } from './http/transports/subscriptionStream';
import { wsTransport } from './http/transports/ws';
import { errorBody, sendJson } from './http/send';
import { idempotencyFromConfig } from './idempotency/idempotencyStep';
import { liveSubscriptions } from './live/liveSubscriptionsPlugin';
import type { Logger } from './logger';
import { UpstreamDeviations } from './observability/deviations';
import { GatewayMetrics } from './observability/metrics';
import { observabilityHooks } from './observability/upstreamHooks';
import { openRedisConnection } from './redis/connection';
import { createTrustedDocuments } from './trustedDocuments/trustedDocumentsStep';
import { combineEvents, createUpstreams, loggingHooks } from './upstreams';
import { SharedReads } from './upstreams/sharedReads';

/** What a gateway is built from; each optional part defaults to the one the settings describe (tests inject theirs). */
export interface GatewayDeps {
  config: Config;
  logger: Logger;
  upstreams?: Upstreams;
  /** The clock of the upstream policies (circuit breakers, retry budgets), in ms. */
  upstreamClock?: () => number;
  metrics?: GatewayMetrics;
  sharedReads?: SharedReads;
  /** What the browser explorer pre-fills (outside production). */
  explorer?: Omit<ExplorerOptions, 'enabled'>;
}

export type Gateway = ReturnType<typeof createGateway>;

/** Builds the gateway (Apollo server and HTTP routes) without listening. */
export function createGateway(deps: GatewayDeps) {
  const { config, logger } = deps;
  const metrics = deps.metrics ?? new GatewayMetrics();
  // One per gateway: it logs each kind of upstream deviation once.
  const deviations = new UpstreamDeviations({ logger, metrics });
  const upstreams = deps.upstreams ?? createUpstreams(config, combineEvents(loggingHooks(logger), observabilityHooks(metrics, logger)), deps.upstreamClock);
  const { limits } = config;
  // The one Redis connection of this process, for every policy shared across replicas.
  // Behind Sentinel, the Sentinel settings win and REDIS_URL only lends its password and database number.
  const redis =
    config.redisUrl || config.redisSentinel
      ? openRedisConnection({ url: config.redisUrl, sentinel: config.redisSentinel, waitTimeoutMs: config.redisWaitTimeoutMs, logger })
      : undefined;
  const sharedReads =
    deps.sharedReads ??
    new SharedReads({
      maxAgeSeconds: config.upstreamCache.maxAgeSeconds,
      maxBytes: config.upstreamCache.maxBytes,
      redis,
      onRead: (key, source) => metrics.countRead(key.service, key.route, source),
    });
  const persistedQueries = createPersistedQueryCache({ maxBytes: config.persistedQueries.maxBytes, redis });
  const clients = createClientPolicies(config, { metrics, redis });
  // Clients file and manifests are read and validated here, so a bad one stops the start.
  const trusted = createTrustedDocuments({ ...config.trustedDocuments, metrics });
  const contextDeps = { config, logger, upstreams, metrics, deviations, sharedReads };
  // Subscriptions pass the pipeline as queries do; the executor makes each a subscriber of its shared poll, whose
  // reads run through Apollo again as queries.
  const live = liveSubscriptions({
    execute: (request, contextValue) => execution.apollo.executeOperation(request, { contextValue }),
    context: (request) => createContext(contextDeps, request),
    formatError: (formatted, error) => execution.formatError(formatted, error),
    budgets: clients?.budgets,
    config,
    redis,
    logger,
    metrics,
  });
  const execution = createExecution({ config, logger, persistedQueries, clientCost: clients?.cost, pinDocuments: trusted?.pin, plugins: [live.plugin] });
  const context = (request: GraphqlRequest) => Promise.resolve(createContext(contextDeps, request));
  // Outermost first: client identity and budgets on the request as sent; trusted documents turn ids into their
  // text; clients bound to trusted documents came by a manifest id. Subscriptions pass these too.
  const admission = [...(clients ? [clients.step] : []), ...(trusted ? [trusted.step] : []), ...(clients ? [clients.trustedOnlyStep] : [])];

  const lifecycle = new ServerLifecycle();
  const graphql = graphqlRoute({
    apollo: execution.apollo,
    // Before Apollo has started, `/graphql` is answered 503 rather than reach a server that cannot serve yet.
    starting: () => lifecycle.state === 'starting',
    limits,
    logger,
    metrics,
    context,
    compiled: execution.compiled
      ? compiledPath({
          operations: execution.compiled,
          limits: { maxUpstreamCalls: limits.maxUpstreamCalls, maxCost: limits.maxCost },
          clients,
        })
      : undefined,
    compression: config.responseCompression,
    // APQ hashes turned into their text before idempotency, so it sees every mutation's text however it was named.
    steps: [...admission, persistedQueriesStep(persistedQueries), idempotencyFromConfig({ config, logger, metrics, redis })],
    // Subscriptions over SSE or multipart HTTP, held past the drain of ordinary requests and completed on shutdown.
    writeStream: subscriptionStreamWriter({ hold: (res, end) => lifecycle.hold(res, end), logger }),
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
  const ws = wsTransport({
    server,
    pipeline: graphql,
    context,
    schema: execution.schema,
    maxPayload: limits.maxBodyBytes,
    maxSubscriptionsPerConnection: config.live.maxSubscriptionsPerConnection,
    logger,
  });

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://gateway.invalid');
    if (await opsRoutes(req, res, url.pathname, { lifecycle, metrics })) return;
    if (await explorer(req, res, url)) return;
    if (url.pathname === '/graphql') return graphql(req, res, url);
    sendJson(res, 404, { error: 'Not found' });
  }

  return {
    /** Not listening: the caller decides where (tests use port 0). */
    server,
    metrics,
    get state() {
      return lifecycle.state;
    },
    async start() {
      await execution.apollo.start();
      lifecycle.markReady();
    },
    /** Readiness turns 503 while the gateway keeps serving (the shutdown delay, so load balancers move away). */
    drain() {
      lifecycle.markDraining();
    },
    /** The listener closes; in-flight requests finish (cut after DRAIN_TIMEOUT_MS); connections and pools close. */
    async stop() {
      const drained = lifecycle.drain(server, config.drainTimeoutMs);
      // WebSockets hold the listener open: they close with 1001 once the HTTP requests in flight have finished (the
      // drain completes the HTTP subscription streams then too).
      await lifecycle.idle();
      await ws.close();
      const { cut } = await drained;
      live.close();
      if (cut > 0) logger.warn({ requests: cut, drainTimeoutMs: config.drainTimeoutMs }, 'drain timeout passed: cut the requests still in flight');
      await execution.apollo.stop();
      await Promise.all([upstreams.reservation.close(), upstreams.pos.close(), redis?.close()]);
    },
  };
}
