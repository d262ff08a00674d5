import type { ApolloServer } from '@apollo/server';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createApolloServer } from './apolloServer';
import { createPersistedQueryCache } from './apq/cache';
import type { Config } from './config';
import { createContext, type GatewayContext, type Upstreams } from './context';
import { graphqlRoute } from './http/graphqlRoute';
import { ServerLifecycle, type LifecycleState } from './http/lifecycle';
import { opsRoutes } from './http/opsRoutes';
import { errorBody, sendJson } from './http/send';
import { idempotencyFromConfig } from './idempotency';
import type { Logger } from './logger';
import { GatewayMetrics } from './observability/metrics';
import { combineHooks, observabilityHooks } from './observability/upstreamHooks';
import { openRedisConnection } from './redis/connection';
import { createUpstreams, loggingHooks } from './upstreams';

export interface GatewayDeps {
  config: Config;
  logger: Logger;
  /** Defaults to undici pools on the configured base addresses. */
  upstreams?: Upstreams;
  /** Defaults to a new registry of this gateway's own. */
  metrics?: GatewayMetrics;
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
  // Both listener sets hear every event: the circuit's log line and its gauge.
  const upstreams = deps.upstreams ?? createUpstreams(config, combineHooks(loggingHooks(logger), observabilityHooks(metrics, logger)));
  const { limits } = config;
  // The one Redis connection of this process, for every policy shared across replicas (src/redis/connection.ts).
  const redis = config.redisUrl ? openRedisConnection({ url: config.redisUrl, logger }) : undefined;
  const persistedQueries = createPersistedQueryCache({ maxBytes: config.persistedQueries.maxBytes, redis });
  const apollo = createApolloServer({ config, logger, metrics, persistedQueries });

  const lifecycle = new ServerLifecycle();
  const graphql = graphqlRoute({
    apollo,
    limits,
    logger,
    metrics,
    context: (request) => Promise.resolve(createContext({ config, logger, upstreams, metrics }, request)),
    steps: [idempotencyFromConfig({ config, logger, metrics, redis, persistedQueries })],
  });
  const server = createServer((req, res) => {
    lifecycle.track(res);
    route(req, res).catch((err: unknown) => {
      logger.error({ err }, 'request handling failed');
      if (!res.headersSent) sendJson(res, 500, errorBody('Internal server error', 'INTERNAL_SERVER_ERROR'));
      else res.destroy();
    });
  });

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://gateway.invalid');
    if (await opsRoutes(req, res, url.pathname, { lifecycle, metrics })) return;
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
      const { cut } = await lifecycle.drain(server, config.drainTimeoutMs);
      if (cut > 0) logger.warn({ requests: cut, drainTimeoutMs: config.drainTimeoutMs }, 'drain timeout passed: cut the requests still in flight');
      await apollo.stop();
      await Promise.all([upstreams.reservation.close(), upstreams.pos.close(), redis?.close()]);
    },
  };
}
