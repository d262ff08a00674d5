import { z } from 'zod';
import { availableCores } from './process/cores';
import type { UpstreamHttpOptions } from './upstreams/http';
import type { BreakerOptions, BulkheadOptions, RetryOptions } from './upstreams/resilience';

const int = (def: number, min = 0) => z.coerce.number().int().min(min).default(def);
const bool = (def: boolean) =>
  z
    .enum(['true', 'false', '1', '0'])
    .transform((v) => v === 'true' || v === '1')
    .default(def);
const ratio = (def: number) => z.coerce.number().min(0).max(1).default(def);
const openRatio = (def: number) => z.coerce.number().gt(0, 'must be above 0').lt(1, 'must be below 1').default(def);
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
  BREAKER_CONSECUTIVE_FAILURES: int(5, 1),
  BREAKER_FAILURE_RATIO: openRatio(0.5),
  BREAKER_WINDOW_SIZE: int(20, 1),
  BREAKER_MINIMUM_CALLS: int(10, 1),
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
  WORKERS: z
    .string()
    .regex(/^(auto|[1-9]\d{0,2})$/, 'must be auto or a whole number of processes from 1 to 999')
    .transform((v) => (v === 'auto' ? availableCores() : Number(v)))
    .default(1),
  HEAP_GROWING_PERCENT: int(50).pipe(z.number().max(300)),
}).superRefine((e, ctx) => {
  if (e.BREAKER_MINIMUM_CALLS > e.BREAKER_WINDOW_SIZE) {
    ctx.addIssue({ code: 'custom', path: ['BREAKER_MINIMUM_CALLS'], message: `must not exceed BREAKER_WINDOW_SIZE (${e.BREAKER_WINDOW_SIZE})` });
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
        consecutiveFailures: e.BREAKER_CONSECUTIVE_FAILURES,
        failureRatio: e.BREAKER_FAILURE_RATIO,
        windowSize: e.BREAKER_WINDOW_SIZE,
        minimumCalls: e.BREAKER_MINIMUM_CALLS,
        halfOpenAfterMs: e.BREAKER_HALF_OPEN_AFTER_MS,
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
    workers: e.WORKERS,
    heapGrowingPercent: e.HEAP_GROWING_PERCENT,
  });
}

function problemOf(issue: z.core.$ZodIssue): string {
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
