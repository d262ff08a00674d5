import type { z } from 'zod';
import type { ConnectionLimits } from './http/connectionLimits';
import { ConfigSchema, manifestPaths, namesOf, type Settings } from './config/settings';
import { upstreamConfig, type UpstreamConfig } from './config/upstreams';

export { ConfigSchema } from './config/settings';
export type { UpstreamConfig } from './config/upstreams';

export type Config = Readonly<{
  env: 'production' | 'development' | 'test';
  port: number;
  host: string;
  /** After SIGTERM/SIGINT: keep serving with readiness 503 this long, so load balancers stop sending traffic. */
  shutdownDelayMs: number;
  /** Then: the longest wait for in-flight requests before their connections are cut. */
  drainTimeoutMs: number;
  /** Traces are exported over OTLP/HTTP when `endpoint` is set. */
  tracing: Readonly<{ endpoint?: string; serviceName: string }>;
  logLevel: Settings['LOG_LEVEL'];
  posTimestampUnit: Settings['POS_TIMESTAMP_UNIT'];
  reservation: UpstreamConfig;
  pos: UpstreamConfig;
  checkLoaderConcurrency: number;
  /** The whole GraphQL request's budget: every upstream call it makes shares it. */
  requestTimeoutMs: number;
  limits: QueryLimits;
  introspection: boolean;
  /**
   * Which documents graphql-jit compiles (src/execution/jitExecution.ts; 0 documents keeps all on graphql-js), and
   * the budget of Apollo's cache of parsed and validated documents.
   */
  execution: Readonly<{ minUses: number; maxCompiledDocuments: number; documentCacheMaxBytes: number; compiledPath: boolean }>;
  persistedQueries: Readonly<{ maxBytes: number; ttlSeconds: number }>;
  /** Shared state across replicas (persisted queries, idempotency records, rate budgets) goes here when set. */
  redisUrl?: string;
  /** Live subscriptions (src/live): the poll interval and the most subscriptions one WebSocket may hold. */
  live: { pollMs: number; maxSubscriptionsPerConnection: number };
  /**
   * Client identity and policies (src/clients): the clients file's path, and the share of each limit a replica
   * enforces alone while Redis is unreachable (1 ÷ localShareOf).
   */
  clients: Readonly<{ file?: string; localShareOf: number }>;
  /** What the gateway's own HTTP server allows a client connection (src/http/connectionLimits.ts). */
  connectionLimits: ConnectionLimits;
  /** Settings accepted but without effect (retired), for a warning at start. */
  warnings: readonly string[];
  /** Manifests of trusted documents and what to do with the rest (src/trustedDocuments). */
  trustedDocuments: Readonly<{ mode: 'off' | 'log' | 'enforce'; paths: readonly string[] }>;
  /** Idempotent mutations (src/idempotency/): how long outcomes are kept, their size, and what the store's absence means. */
  idempotency: Readonly<{ ttlSeconds: number; maxResponseBytes: number; failOpen: boolean; required: readonly string[]; memoryMaxBytes: number }>;
  /** Shared upstream reads (src/upstreams/sharedReads.ts): the longest `max-age` honoured (0: nothing kept) and the bytes kept. */
  upstreamCache: Readonly<{ maxAgeSeconds: number; maxBytes: number }>;
}>;

export type QueryLimits = Readonly<{
  maxBodyBytes: number;
  /** Operations in one batched HTTP request; 0 turns batching off. */
  maxBatchSize: number;
  maxDepth: number;
  maxCost: number;
  maxAliases: number;
  maxTokens: number;
  maxDirectives: number;
  maxUpstreamCalls: number;
}>;

/** Thrown with every problem of the environment at once, each naming its variable. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const input = withoutBlanks(env);
  const parsed = ConfigSchema.safeParse(input);
  if (!parsed.success) {
    // zod 4 leaves the input out of its issues, so "missing" is told from the environment itself. Values are never
    // echoed: a malformed one may still hold a secret.
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${problemOf(i, input[String(i.path[0])] === undefined)}`));
  }
  const e = parsed.data;
  return deepFreeze({
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    shutdownDelayMs: e.SHUTDOWN_DELAY_MS,
    drainTimeoutMs: e.DRAIN_TIMEOUT_MS,
    tracing: { endpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT, serviceName: e.OTEL_SERVICE_NAME },
    logLevel: e.LOG_LEVEL,
    posTimestampUnit: e.POS_TIMESTAMP_UNIT,
    reservation: upstreamConfig(e, e.RESERVATION_BASE_URL),
    pos: upstreamConfig(e, e.POS_BASE_URL),
    checkLoaderConcurrency: e.CHECK_LOADER_CONCURRENCY,
    requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
    limits: {
      maxBodyBytes: e.MAX_BODY_BYTES,
      maxBatchSize: e.MAX_BATCH_SIZE,
      maxDepth: e.MAX_DEPTH,
      maxCost: e.MAX_COST,
      maxAliases: e.MAX_ALIASES,
      maxTokens: e.MAX_TOKENS,
      maxDirectives: e.MAX_DIRECTIVES,
      maxUpstreamCalls: e.MAX_UPSTREAM_CALLS,
    },
    introspection: e.INTROSPECTION || e.NODE_ENV !== 'production',
    execution: { minUses: e.JIT_MIN_USES, maxCompiledDocuments: e.JIT_MAX_DOCUMENTS, documentCacheMaxBytes: e.DOCUMENT_CACHE_MAX_BYTES, compiledPath: e.COMPILED_PATH },
    persistedQueries: { maxBytes: e.APQ_CACHE_MAX_BYTES, ttlSeconds: e.APQ_TTL_SECONDS },
    redisUrl: e.REDIS_URL,
    live: { pollMs: Math.round(e.LIVE_POLL_SECONDS * 1000), maxSubscriptionsPerConnection: e.LIVE_MAX_SUBSCRIPTIONS_PER_CONNECTION },
    clients: { file: e.CLIENTS_FILE, localShareOf: e.RATE_LIMIT_LOCAL_SHARE_OF },
    connectionLimits: {
      headersTimeoutMs: e.SERVER_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: e.SERVER_REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: e.SERVER_KEEP_ALIVE_TIMEOUT_MS,
      maxRequestsPerSocket: e.SERVER_MAX_REQUESTS_PER_SOCKET,
      maxHeaderBytes: e.SERVER_MAX_HEADER_BYTES,
      maxConnections: e.SERVER_MAX_CONNECTIONS,
    },
    warnings: [
      ...(e.BREAKER_WINDOW_SIZE === undefined ? [] : ['BREAKER_WINDOW_SIZE has no effect any more: the failure ratio is measured over a time window, BREAKER_WINDOW_MS']),
    ],
    trustedDocuments: { mode: e.TRUSTED_DOCUMENTS_MODE, paths: manifestPaths(e.TRUSTED_DOCUMENTS) },
    idempotency: {
      ttlSeconds: e.IDEMPOTENCY_TTL_SECONDS,
      maxResponseBytes: e.IDEMPOTENCY_MAX_RESPONSE_BYTES,
      failOpen: e.IDEMPOTENCY_FAIL_OPEN,
      required: namesOf(e.IDEMPOTENCY_REQUIRED),
      memoryMaxBytes: e.IDEMPOTENCY_MEMORY_MAX_BYTES,
    },
    upstreamCache: { maxAgeSeconds: e.UPSTREAM_CACHE_MAX_AGE_SECONDS, maxBytes: e.UPSTREAM_CACHE_MAX_MB * 1024 * 1024 },
  });
}

/** What is wrong with a setting: a rule across settings says it in its own words; a missing one "is required". */
function problemOf(issue: z.core.$ZodIssue, missing: boolean): string {
  if (issue.code === 'custom') return issue.message;
  if (missing) return 'is required';
  if (issue.code !== 'invalid_type') return issue.message;
  return issue.expected === 'int' ? 'must be an integer' : `must be a ${issue.expected}`;
}

/** An empty variable counts as unset, as shells and container specs often leave them. */
function withoutBlanks(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && v !== '') out[k] = v;
  return out;
}

function deepFreeze<T extends object>(value: T): T {
  for (const v of Object.values(value)) if (typeof v === 'object' && v !== null) deepFreeze(v);
  return Object.freeze(value);
}
