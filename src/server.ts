import { ApolloServer, HeaderMap, type HTTPGraphQLRequest } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { ApolloArmor } from '@escape.tech/graphql-armor';
import { InMemoryLRUCache } from '@apollo/utils.keyvaluecache';
import type { DocumentNode } from 'graphql';
import { createPersistedQueryCache } from './apq/cache';
import { openRedisConnection } from './redis/connection';
import type { Config, UpstreamConfig } from './config';
import { createContext, requestIdFrom, type GatewayContext, type Upstreams } from './context';
import { createFormatError, type ServiceName, type UpstreamError } from './errors';
import { BodyTooLargeError, readBody } from './http/body';
import { ServerLifecycle, type LifecycleState } from './http/lifecycle';
import { metricsPlugin } from './http/metricsPlugin';
import { opsRoutes } from './http/opsRoutes';
import { requestLogPlugin } from './http/requestLogPlugin';
import { tracingPlugin } from './http/tracingPlugin';
import { upstreamCallLimitPlugin } from './limits/upstreamCallLimit';
import type { Logger } from './logger';
import { UpstreamDeviations } from './observability/deviations';
import { GatewayMetrics } from './observability/metrics';
import { withOperationSpan } from './observability/tracing';
import { combineHooks, observabilityHooks } from './observability/upstreamHooks';
import { buildExecutableSchema, jitExecution } from './execution/jitExecution';
import { resolvers } from './resolvers';
import { loadTypeDefs } from './schema';
import { UpstreamHttp, type UpstreamCallRecord } from './upstreams/http';
import type { CircuitStateName } from './upstreams/resilience';

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

export interface UpstreamHooks {
  onCall?: (record: UpstreamCallRecord) => void;
  onCircuitStateChange?: (service: ServiceName, state: CircuitStateName) => void;
  onRetry?: (service: ServiceName, attempt: number, delayMs: number, error: UpstreamError) => void;
}

export function createUpstreams(config: Config, hooks: UpstreamHooks = {}): Upstreams {
  const make = (service: ServiceName, upstream: UpstreamConfig) =>
    new UpstreamHttp({
      service,
      ...upstream,
      onCall: hooks.onCall,
      resilience: { ...upstream.resilience, onCircuitStateChange: hooks.onCircuitStateChange, onRetry: hooks.onRetry },
    });
  return { reservation: make('reservation', config.reservation), pos: make('pos', config.pos) };
}

/** Logs what an operator needs to see of the upstreams: circuit changes and retries. */
export function loggingHooks(logger: Logger): UpstreamHooks {
  return {
    onCircuitStateChange: (service, state) => {
      const log = state === 'closed' ? logger.info.bind(logger) : logger.warn.bind(logger);
      log({ upstream: service, circuit: state }, `circuit of the ${service} service is ${state}`);
    },
    onRetry: (service, attempt, delayMs, error) =>
      logger.debug({ upstream: service, attempt, delayMs: Math.round(delayMs), failure: error.failure, status: error.status }, 'retrying upstream call'),
  };
}

/** Builds the gateway (Apollo server and HTTP routes) without listening. */
export function createGateway(deps: GatewayDeps): Gateway {
  const { config, logger } = deps;
  const metrics = deps.metrics ?? new GatewayMetrics();
  const deviations = new UpstreamDeviations({ logger, metrics });
  // Both listener sets hear every event: the circuit's log line and its gauge.
  const upstreams = deps.upstreams ?? createUpstreams(config, combineHooks(loggingHooks(logger), observabilityHooks(metrics, logger)));
  const production = config.env === 'production';
  const { limits } = config;
  const armor = new ApolloArmor({
    maxDepth: { n: limits.maxDepth },
    costLimit: { maxCost: limits.maxCost },
    maxAliases: { n: limits.maxAliases },
    maxTokens: { n: limits.maxTokens },
    maxDirectives: { n: limits.maxDirectives },
    blockFieldSuggestion: { enabled: production },
  }).protect();
  // The one Redis connection of this process, for every policy shared across replicas (src/redis/connection.ts).
  const redis = config.redisUrl ? openRedisConnection({ url: config.redisUrl, logger }) : undefined;
  const persistedQueries = createPersistedQueryCache({ maxBytes: config.persistedQueries.maxBytes, redis });
  const execution = jitExecution(buildExecutableSchema(loadTypeDefs(), resolvers), config.execution);
  const apollo = new ApolloServer<GatewayContext>({
    gateway: execution,
    // Parsed and validated documents, by query text. Apollo's default budget (30 MiB by its estimate) lets ~100 MB of
    // syntax trees pile up when clients send ever-new documents; a miss only costs a parse and a validation.
    documentStore: new InMemoryLRUCache<DocumentNode>({ maxSize: config.execution.documentCacheMaxBytes, sizeCalculation: InMemoryLRUCache.sizeCalculation }),
    // The process's signals are main.ts's business: Apollo's own handler would stop it in the middle of the drain.
    stopOnTerminationSignals: false,
    logger,
    introspection: config.introspection,
    includeStacktraceInErrorResponses: false,
    hideSchemaDetailsFromClientErrors: production,
    csrfPrevention: true,
    allowBatchedHttpRequests: limits.maxBatchSize > 0,
    persistedQueries: { cache: persistedQueries, ttl: config.persistedQueries.ttlSeconds },
    validationRules: armor.validationRules,
    formatError: createFormatError(logger),
    plugins: [
      // No cache hints in this schema and no HTTP caching of answers carrying credentials; the default cache-control
      // plugin would still wrap every field's resolver (docs/performance.md).
      ApolloServerPluginCacheControlDisabled(),
      ...armor.plugins,
      upstreamCallLimitPlugin({ maxCalls: limits.maxUpstreamCalls }),
      production ? ApolloServerPluginLandingPageDisabled() : ApolloServerPluginLandingPageLocalDefault({ embed: true, includeCookies: false }),
      requestLogPlugin(),
      metricsPlugin(metrics),
      tracingPlugin(),
    ],
  });

  const lifecycle = new ServerLifecycle();
  const server = createServer((req, res) => {
    lifecycle.track(res);
    route(req, res).catch((err: unknown) => {
      logger.error({ err }, 'request handling failed');
      if (!res.headersSent) sendJson(res, 500, { errors: [{ message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR' } }] });
      else res.destroy();
    });
  });

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://gateway.invalid');
    if (await opsRoutes(req, res, url.pathname, { lifecycle, metrics })) return;
    if (url.pathname === '/graphql') return graphql(req, res, url);
    sendJson(res, 404, { error: 'Not found' });
  }

  /**
   * A request refused before Apollo's plugins see it (wrong method, body too large or not JSON, batch too large, or
   * Apollo's own CSRF and HTTP checks): it still gets its log line and its count, as every GraphQL request does.
   */
  function logRefusal(requestId: string, started: number, status: number, errorCodes: string[]): void {
    const seconds = (performance.now() - started) / 1000;
    logger.info({ requestId, operationName: null, durationMs: Math.round(seconds * 10_000) / 10, outcome: 'error', errorCodes, httpStatus: status, upstreamCalls: [] }, 'graphql request');
    metrics.observeOperation(null, 'error', seconds);
  }

  function refuse(res: ServerResponse, requestId: string, started: number, status: number, message: string): void {
    sendJson(res, status, { errors: [{ message, extensions: { code: 'BAD_REQUEST' } }] });
    logRefusal(requestId, started, status, ['BAD_REQUEST']);
  }

  async function graphql(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const started = performance.now();
    const requestId = requestIdFrom(header(req, 'x-request-id'));
    res.setHeader('x-request-id', requestId);
    if (req.method !== 'GET' && req.method !== 'POST') {
      res.setHeader('allow', 'GET, POST');
      return refuse(res, requestId, started, 405, 'Use GET or POST');
    }
    let body: unknown;
    try {
      body = await parseBody(req, limits.maxBodyBytes);
    } catch (err) {
      if (err instanceof BodyTooLargeError) return refuse(res, requestId, started, 413, err.message);
      if (err instanceof SyntaxError) return refuse(res, requestId, started, 400, 'The request body is not valid JSON');
      throw err;
    }
    if (Array.isArray(body) && body.length > Math.max(limits.maxBatchSize, 1)) {
      const message = limits.maxBatchSize > 0 ? `A batch may hold at most ${limits.maxBatchSize} operations` : 'Batched requests are not accepted';
      return refuse(res, requestId, started, 400, message);
    }
    const headers = new HeaderMap();
    for (const [key, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
    }
    const httpGraphQLRequest: HTTPGraphQLRequest = { method: req.method, headers, search: url.search, body };
    // Apollo builds the context only for a request that passed its HTTP checks; the plugins log and count those.
    let reachedPlugins = false;
    const result = await withOperationSpan({ method: req.method, headers: req.headers }, () =>
      apollo.executeHTTPGraphQLRequest({
        httpGraphQLRequest,
        context: async () => {
          reachedPlugins = true;
          return createContext({ config, logger, upstreams, metrics, deviations }, { header: (name) => header(req, name), requestId });
        },
      }),
    );
    if (!reachedPlugins && result.body.kind === 'complete') logRefusal(requestId, started, result.status ?? 200, errorCodesOf(result.body.string));
    res.statusCode = result.status ?? 200;
    for (const [key, value] of result.headers) res.setHeader(key, value);
    if (result.body.kind === 'complete') {
      res.end(result.body.string);
      return;
    }
    for await (const chunk of result.body.asyncIterator) res.write(chunk);
    res.end();
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

function header(req: IncomingMessage, lowerName: string): string | undefined {
  const value = req.headers[lowerName];
  return Array.isArray(value) ? value[0] : value;
}

/** JSON bodies are parsed here; anything else is left for Apollo to refuse (and its CSRF check to see). */
async function parseBody(req: IncomingMessage, limit: number): Promise<unknown> {
  if (req.method !== 'POST') return undefined;
  const text = await readBody(req, limit);
  const type = req.headers['content-type'] ?? '';
  if (!/^application\/(graphql-response\+)?json/i.test(type)) return text;
  return text === '' ? undefined : (JSON.parse(text) as unknown);
}

/** The distinct `extensions.code`s of an error body Apollo wrote itself (small: a refusal, not a result). */
function errorCodesOf(text: string): string[] {
  try {
    const body = JSON.parse(text) as { errors?: Array<{ extensions?: { code?: unknown } }> };
    return [...new Set((body.errors ?? []).map((e) => e.extensions?.code).filter((c): c is string => typeof c === 'string'))];
  } catch {
    return [];
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
