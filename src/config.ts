import { z } from 'zod';
import { availableCores } from './process/cores';
import type { UpstreamHttpOptions } from './upstreams/http';
import type { BreakerOptions, BulkheadOptions, RetryOptions } from './upstreams/resilience';
import type { ConnectionLimits } from './http/connectionLimits';

const int = (def: number, min = 0) => z.coerce.number().int().min(min).default(def);
const bool = (def: boolean) =>
  z
    .enum(['true', 'false', '1', '0'])
    .transform((v) => v === 'true' || v === '1')
    .default(def);
const ratio = (def: number) => z.coerce.number().min(0).max(1).default(def);
const openRatio = (def: number) => z.coerce.number().gt(0, 'must be above 0').lt(1, 'must be below 1').default(def);
/** Comma-separated GraphQL names (`a, b`), split by namesOf. */
const nameList = z
  .string()
  .regex(/^\s*[_A-Za-z]\w*\s*(,\s*[_A-Za-z]\w*\s*)*,?\s*$/, 'must be comma-separated GraphQL names')
  .optional();
const namesOf = (list: string | undefined): string[] => (list ?? '').split(',').map((n) => n.trim()).filter(Boolean);
const baseUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

/**
 * Every setting, parsed from the environment. Each one is in the README's settings table (a test checks it).
 * Names are the environment variables; defaults are safe for production.
 */
export const ConfigSchema = z.object({
  NODE_ENV: z.enum(['production', 'development', 'test']).default('production'),
  RESERVATION_BASE_URL: baseUrl,
  POS_BASE_URL: baseUrl,
  PORT: int(4000).pipe(z.number().max(65535)),
  HOST: z.string().min(1).default('0.0.0.0'),
  SHUTDOWN_DELAY_MS: int(5000),
  DRAIN_TIMEOUT_MS: int(15_000, 1),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  OTEL_SERVICE_NAME: z.string().min(1).default('tablegraph'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  POS_TIMESTAMP_UNIT: z.enum(['s', 'ms']).default('s'),
  UPSTREAM_CONNECT_TIMEOUT_MS: int(1000, 1),
  UPSTREAM_HEADERS_TIMEOUT_MS: int(3000, 1),
  UPSTREAM_BODY_TIMEOUT_MS: int(3000, 1),
  UPSTREAM_CONNECTIONS: int(128, 1),
  UPSTREAM_MAX_RESPONSE_BYTES: int(5 * 1024 * 1024, 1024),
  REQUEST_TIMEOUT_MS: int(10_000, 1),
  UPSTREAM_RETRIES: int(2).pipe(z.number().max(2)),
  UPSTREAM_RETRY_BASE_DELAY_MS: int(50),
  UPSTREAM_RETRY_MAX_DELAY_MS: int(1000),
  UPSTREAM_RETRY_AFTER_MAX_MS: int(2000),
  UPSTREAM_RETRY_BUDGET_RATIO: ratio(0.1),
  UPSTREAM_RETRY_BUDGET_MIN_PER_SECOND: int(1),
  BREAKER_CONSECUTIVE_FAILURES: int(0),
  BREAKER_FAILURE_RATIO: openRatio(0.5),
  /** Retired: the window is a time span now (BREAKER_WINDOW_MS). Still accepted, so a deployment setting it starts. */
  BREAKER_WINDOW_SIZE: z.coerce.number().int().min(1).optional(),
  BREAKER_MINIMUM_CALLS: int(50, 1),
  BREAKER_HALF_OPEN_AFTER_MS: int(10_000, 1),
  UPSTREAM_MAX_CONCURRENT: int(128, 1),
  UPSTREAM_MAX_QUEUED: int(2048),
  CHECK_LOADER_CONCURRENCY: int(32, 1),
  MAX_BODY_BYTES: int(1024 * 1024, 1024),
  MAX_BATCH_SIZE: int(0).pipe(z.number().max(50)),
  MAX_DEPTH: int(10, 1),
  MAX_COST: int(5000, 1),
  MAX_ALIASES: int(10),
  MAX_TOKENS: int(2000, 1),
  MAX_DIRECTIVES: int(20),
  MAX_UPSTREAM_CALLS: int(150, 1),
  INTROSPECTION: bool(false),
  JIT_MIN_USES: int(3, 1),
  JIT_MAX_DOCUMENTS: int(50),
  DOCUMENT_CACHE_MAX_BYTES: int(8 * 1024 * 1024, 1024),
  APQ_CACHE_MAX_BYTES: int(10 * 1024 * 1024, 1024),
  APQ_TTL_SECONDS: int(86_400, 1),
  REDIS_URL: z.url({ protocol: /^rediss?$/, error: 'must be a redis:// or rediss:// URL' }).optional(),
  CLIENTS_FILE: z.string().min(1).optional(),
  RATE_LIMIT_LOCAL_SHARE_OF: int(1, 1),
  BREAKER_WINDOW_MS: int(10_000, 100),
  BREAKER_HALF_OPEN_PROBES: int(10, 1),
  SERVER_HEADERS_TIMEOUT_MS: int(5000, 1),
  SERVER_REQUEST_TIMEOUT_MS: int(30_000, 1),
  SERVER_KEEP_ALIVE_TIMEOUT_MS: int(5000, 1),
  SERVER_MAX_REQUESTS_PER_SOCKET: int(1000),
  SERVER_MAX_HEADER_BYTES: int(16 * 1024, 1024),
  SERVER_MAX_CONNECTIONS: int(4096, 1),
  TRUSTED_DOCUMENTS: z.string().optional(),
  TRUSTED_DOCUMENTS_MODE: z.enum(['off', 'log', 'enforce']).default('log'),
  IDEMPOTENCY_TTL_SECONDS: int(86_400, 1),
  IDEMPOTENCY_MAX_RESPONSE_BYTES: int(256 * 1024, 1024),
  IDEMPOTENCY_FAIL_OPEN: bool(false),
  IDEMPOTENCY_REQUIRED: nameList,
  IDEMPOTENCY_MEMORY_MAX_BYTES: int(64 * 1024 * 1024, 64 * 1024),
  WORKERS: z
    .string()
    .regex(/^(auto|[1-9]\d{0,2})$/, 'must be auto or a whole number of processes from 1 to 999')
    .transform((v) => (v === 'auto' ? availableCores() : Number(v)))
    .default(1),
  HEAP_GROWING_PERCENT: int(50).pipe(z.number().max(300)),
}).superRefine((e, ctx) => {
  if (e.SERVER_HEADERS_TIMEOUT_MS > e.SERVER_REQUEST_TIMEOUT_MS) {
    ctx.addIssue({ code: 'custom', path: ['SERVER_HEADERS_TIMEOUT_MS'], message: `must not exceed SERVER_REQUEST_TIMEOUT_MS (${e.SERVER_REQUEST_TIMEOUT_MS})` });
  }
  if (e.TRUSTED_DOCUMENTS_MODE === 'enforce' && manifestPaths(e.TRUSTED_DOCUMENTS).length === 0) {
    ctx.addIssue({ code: 'custom', path: ['TRUSTED_DOCUMENTS'], message: 'is required when TRUSTED_DOCUMENTS_MODE is enforce (it would refuse every request)' });
  }
});

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
  logLevel: z.infer<typeof ConfigSchema>['LOG_LEVEL'];
  posTimestampUnit: 's' | 'ms';
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
  execution: Readonly<{ minUses: number; maxCompiledDocuments: number; documentCacheMaxBytes: number }>;
  persistedQueries: Readonly<{ maxBytes: number; ttlSeconds: number }>;
  /** Shared state across replicas (persisted queries, idempotency records, rate budgets) goes here when set. */
  redisUrl?: string;
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
  /** Gateway processes on the one port (src/process/cluster.ts); 1 runs the gateway in this process alone. */
  workers: number;
  /** Old-space growth between full collections where V8 would allow 4× (src/process/heap.ts); 0: V8's own. */
  heapGrowingPercent: number;
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

/** One upstream's settings: the transport's options (documented there) and its resilience policies. */
export type UpstreamConfig = Readonly<
  Omit<UpstreamHttpOptions, 'service' | 'onCall' | 'resilience'> & {
    resilience: Readonly<{ retry: RetryOptions; breaker: BreakerOptions; bulkhead: BulkheadOptions }>;
  }
>;

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
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${input[String(i.path[0])] === undefined ? 'is required' : problemOf(i)}`));
  }
  const e = parsed.data;
  const upstream = (baseUrl: string): UpstreamConfig => ({
    baseUrl,
    connectTimeoutMs: e.UPSTREAM_CONNECT_TIMEOUT_MS,
    headersTimeoutMs: e.UPSTREAM_HEADERS_TIMEOUT_MS,
    bodyTimeoutMs: e.UPSTREAM_BODY_TIMEOUT_MS,
    connections: e.UPSTREAM_CONNECTIONS,
    maxResponseBytes: e.UPSTREAM_MAX_RESPONSE_BYTES,
    resilience: {
      retry: {
        maxRetries: e.UPSTREAM_RETRIES,
        baseDelayMs: e.UPSTREAM_RETRY_BASE_DELAY_MS,
        maxDelayMs: e.UPSTREAM_RETRY_MAX_DELAY_MS,
        maxRetryAfterMs: e.UPSTREAM_RETRY_AFTER_MAX_MS,
        budgetRatio: e.UPSTREAM_RETRY_BUDGET_RATIO,
        budgetMinPerSecond: e.UPSTREAM_RETRY_BUDGET_MIN_PER_SECOND,
      },
      breaker: {
        failureRatio: e.BREAKER_FAILURE_RATIO,
        windowMs: e.BREAKER_WINDOW_MS,
        minimumCalls: e.BREAKER_MINIMUM_CALLS,
        halfOpenAfterMs: e.BREAKER_HALF_OPEN_AFTER_MS,
        halfOpenProbes: e.BREAKER_HALF_OPEN_PROBES,
        consecutiveFailures: e.BREAKER_CONSECUTIVE_FAILURES,
      },
      bulkhead: { maxConcurrent: e.UPSTREAM_MAX_CONCURRENT, maxQueued: e.UPSTREAM_MAX_QUEUED },
    },
  });
  return deepFreeze({
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    shutdownDelayMs: e.SHUTDOWN_DELAY_MS,
    drainTimeoutMs: e.DRAIN_TIMEOUT_MS,
    tracing: { endpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT, serviceName: e.OTEL_SERVICE_NAME },
    logLevel: e.LOG_LEVEL,
    posTimestampUnit: e.POS_TIMESTAMP_UNIT,
    reservation: upstream(e.RESERVATION_BASE_URL),
    pos: upstream(e.POS_BASE_URL),
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
    execution: { minUses: e.JIT_MIN_USES, maxCompiledDocuments: e.JIT_MAX_DOCUMENTS, documentCacheMaxBytes: e.DOCUMENT_CACHE_MAX_BYTES },
    persistedQueries: { maxBytes: e.APQ_CACHE_MAX_BYTES, ttlSeconds: e.APQ_TTL_SECONDS },
    redisUrl: e.REDIS_URL,
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
      // Workers share nothing but Redis: without it, a client's retry that lands on another worker meets none of
      // the first attempt's idempotency record, and each worker keeps its own client budgets.
      ...(e.WORKERS > 1 && e.REDIS_URL === undefined
        ? ['WORKERS above 1 without REDIS_URL: each worker keeps its own idempotency records and client budgets, so a retried mutation may run twice; set REDIS_URL']
        : []),
    ],
    trustedDocuments: { mode: e.TRUSTED_DOCUMENTS_MODE, paths: manifestPaths(e.TRUSTED_DOCUMENTS) },
    idempotency: {
      ttlSeconds: e.IDEMPOTENCY_TTL_SECONDS,
      maxResponseBytes: e.IDEMPOTENCY_MAX_RESPONSE_BYTES,
      failOpen: e.IDEMPOTENCY_FAIL_OPEN,
      required: namesOf(e.IDEMPOTENCY_REQUIRED),
      memoryMaxBytes: e.IDEMPOTENCY_MEMORY_MAX_BYTES,
    },
    workers: e.WORKERS,
    heapGrowingPercent: e.HEAP_GROWING_PERCENT,
  });
}

function problemOf(issue: z.core.$ZodIssue): string {
  if (issue.code !== 'invalid_type') return issue.message;
  return issue.expected === 'int' ? 'must be an integer' : `must be a ${issue.expected}`;
}

/** TRUSTED_DOCUMENTS: comma-separated manifest paths. */
function manifestPaths(value: string | undefined): string[] {
  return (value ?? '').split(',').map((p) => p.trim()).filter((p) => p !== '');
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
