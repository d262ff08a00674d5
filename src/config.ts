import { z } from 'zod';

const int = (def: number, min = 0) => z.coerce.number().int().min(min).default(def);
const bool = (def: boolean) =>
  z
    .enum(['true', 'false', '1', '0'])
    .transform((v) => v === 'true' || v === '1')
    .default(def);
const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });
/** Comma-separated GraphQL names (`a, b`). */
const nameList = z
  .string()
  .regex(/^\s*[_A-Za-z]\w*\s*(,\s*[_A-Za-z]\w*\s*)*,?\s*$/, 'must be comma-separated GraphQL names')
  .optional();

/** The items of a comma-separated setting. */
const listOf = (value: string | undefined): string[] => (value ?? '').split(',').map((p) => p.trim()).filter((p) => p !== '');

/** `host:port` (the port checked by the schema's pattern), as ioredis takes a Sentinel. */
const hostPort = (pair: string): { host: string; port: number } => {
  const at = pair.lastIndexOf(':');
  return { host: pair.slice(0, at), port: Number(pair.slice(at + 1)) };
};

/** Every setting, by its environment variable, with a default safe for production; each is in docs/operations.md's table. */
export const ConfigSchema = z.object({
  NODE_ENV: z.enum(['production', 'development', 'test']).default('production'),
  RESERVATION_BASE_URL: httpUrl,
  POS_BASE_URL: httpUrl,
  PORT: int(4000).pipe(z.number().max(65535)),
  HOST: z.string().min(1).default('0.0.0.0'),
  SHUTDOWN_DELAY_MS: int(5000),
  DRAIN_TIMEOUT_MS: int(15_000, 1),
  OTEL_EXPORTER_OTLP_ENDPOINT: httpUrl.optional(),
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
  UPSTREAM_RETRY_BUDGET_RATIO: z.coerce.number().min(0).max(1).default(0.1),
  UPSTREAM_RETRY_BUDGET_MIN_PER_SECOND: int(1),
  BREAKER_CONSECUTIVE_FAILURES: int(0),
  BREAKER_FAILURE_RATIO: z.coerce.number().gt(0, 'must be above 0').lt(1, 'must be below 1').default(0.5),
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
  MAX_COST: int(50_000, 1),
  MAX_ALIASES: int(10),
  MAX_TOKENS: int(2000, 1),
  MAX_DIRECTIVES: int(20),
  MAX_UPSTREAM_CALLS: int(150, 1),
  INTROSPECTION: bool(false),
  JIT_MIN_USES: int(3, 1),
  JIT_MAX_DOCUMENTS: int(50),
  COMPILED_PATH: bool(true),
  RESPONSE_COMPRESSION: bool(true),
  DOCUMENT_CACHE_MAX_BYTES: int(8 * 1024 * 1024, 1024),
  APQ_CACHE_MAX_BYTES: int(10 * 1024 * 1024, 1024),
  APQ_TTL_SECONDS: int(86_400, 1),
  REDIS_URL: z.url({ protocol: /^rediss?$/, error: 'must be a redis:// or rediss:// URL' }).optional(),
  /** Sentinels (`host:port,…`) to ask for the current primary of REDIS_SENTINEL_NAME; they win over REDIS_URL's host. */
  REDIS_SENTINELS: z
    .string()
    .regex(/^\s*[^\s,:]+:\d{1,5}\s*(,\s*[^\s,:]+:\d{1,5}\s*)*,?\s*$/, 'must be comma-separated host:port pairs (sentinel-a:26379,sentinel-b:26379)')
    .optional(),
  REDIS_SENTINEL_NAME: z.string().regex(/^[A-Za-z0-9._-]{1,128}$/, 'must be the master name the Sentinels monitor (A-Z a-z 0-9 . _ -)').optional(),
  /** Password of the Sentinels themselves, when they ask for one (the primary's comes from REDIS_URL or REDIS_PASSWORD). */
  REDIS_SENTINEL_PASSWORD: z.string().optional(),
  /** How long an idempotency write waits for a replica to acknowledge it (Redis WAIT) before it is not trusted. */
  REDIS_WAIT_TIMEOUT_MS: int(500, 10).pipe(z.number().max(5000)),
  /** The deployment is one process: without REDIS_URL, production keeps the shared state in memory (CONTRACT.md, Process). */
  SINGLE_REPLICA: bool(false),
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
  UPSTREAM_CACHE_MAX_AGE_SECONDS: int(30),
  UPSTREAM_CACHE_MAX_MB: int(64),
  /** Seconds between two reads of a live subscription's data; fractions allowed (tests use 0.2). */
  LIVE_POLL_SECONDS: z.coerce.number().min(0.05).max(3600).default(5),
  LIVE_MAX_SUBSCRIPTIONS_PER_CONNECTION: int(10, 1),
  /** Distinct live polls one client identity may keep open on a process; joining a poll it is in already is free. */
  LIVE_MAX_POLLS_PER_CLIENT: int(20, 1),
  /** Distinct live polls per process. */
  LIVE_MAX_POLLS: int(2000, 1),
}).superRefine((e, ctx) => {
  if (e.SERVER_HEADERS_TIMEOUT_MS > e.SERVER_REQUEST_TIMEOUT_MS) {
    ctx.addIssue({ code: 'custom', path: ['SERVER_HEADERS_TIMEOUT_MS'], message: `must not exceed SERVER_REQUEST_TIMEOUT_MS (${e.SERVER_REQUEST_TIMEOUT_MS})` });
  }
  if ((e.REDIS_SENTINELS === undefined) !== (e.REDIS_SENTINEL_NAME === undefined)) {
    const [missing, given] = e.REDIS_SENTINELS === undefined ? ['REDIS_SENTINELS', 'REDIS_SENTINEL_NAME'] : ['REDIS_SENTINEL_NAME', 'REDIS_SENTINELS'];
    ctx.addIssue({ code: 'custom', path: [missing], message: `is required when ${given} is set (Sentinel needs both the sentinels' addresses and the master name)` });
  }
  if (e.TRUSTED_DOCUMENTS_MODE === 'enforce' && listOf(e.TRUSTED_DOCUMENTS).length === 0) {
    ctx.addIssue({ code: 'custom', path: ['TRUSTED_DOCUMENTS'], message: 'is required when TRUSTED_DOCUMENTS_MODE is enforce (it would refuse every request)' });
  }
})
  // CONTRACT.md, Process, "shared state". Checked even when other settings are wrong, so one message names them all.
  .refine((e) => e.NODE_ENV !== 'production' || e.REDIS_URL !== undefined || e.REDIS_SENTINELS !== undefined || e.SINGLE_REPLICA, {
    path: ['REDIS_URL'],
    message:
      'is required when NODE_ENV is production, for the state replicas share (idempotency records, client budgets, persisted queries, ' +
      'cache invalidations, live polls); or REDIS_SENTINELS and REDIS_SENTINEL_NAME for a Redis behind Sentinel; ' +
      'set SINGLE_REPLICA=true instead if this deployment is one process, to keep it all in memory',
    when: (payload) =>
      payload.issues.every((issue) => !['NODE_ENV', 'REDIS_URL', 'REDIS_SENTINELS', 'REDIS_SENTINEL_NAME', 'SINGLE_REPLICA'].includes(String(issue.path?.[0]))),
  });


export type Config = ReturnType<typeof loadConfig>;
export type QueryLimits = Config['limits'];
/** One upstream's transport options and resilience policies: the same UPSTREAM_* settings for both services. */
export type UpstreamConfig = Config['reservation'];

/** Thrown with every problem of the environment at once, each naming its variable. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env) {
  // An empty variable counts as unset, as shells and container specs often leave them.
  const input = Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== ''));
  const parsed = ConfigSchema.safeParse(input);
  if (!parsed.success) {
    // zod 4 leaves the input out of its issues, so "missing" is told from the environment itself. Values are never
    // echoed: a malformed one may still hold a secret.
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${problemOf(i, input[String(i.path[0])] === undefined)}`));
  }
  const e = parsed.data;
  const upstream = (baseUrl: string) => ({
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
    /** The whole GraphQL request's budget: every upstream call it makes shares it. */
    requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
    limits: {
      maxBodyBytes: e.MAX_BODY_BYTES,
      /** Operations in one batched HTTP request; 0 turns batching off. */
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
    /** gzip and br for answers above 1 KiB, as `Accept-Encoding` asks (off where the ingress compresses). */
    responseCompression: e.RESPONSE_COMPRESSION,
    persistedQueries: { maxBytes: e.APQ_CACHE_MAX_BYTES, ttlSeconds: e.APQ_TTL_SECONDS },
    redisUrl: e.REDIS_URL,
    /** Redis behind Sentinel: wins over REDIS_URL, which then only lends its password and database number. */
    redisSentinel:
      e.REDIS_SENTINELS !== undefined && e.REDIS_SENTINEL_NAME !== undefined
        ? { sentinels: listOf(e.REDIS_SENTINELS).map(hostPort), name: e.REDIS_SENTINEL_NAME, password: e.REDIS_SENTINEL_PASSWORD }
        : undefined,
    redisWaitTimeoutMs: e.REDIS_WAIT_TIMEOUT_MS,
    live: {
      pollMs: Math.round(e.LIVE_POLL_SECONDS * 1000),
      maxSubscriptionsPerConnection: e.LIVE_MAX_SUBSCRIPTIONS_PER_CONNECTION,
      maxPollsPerClient: e.LIVE_MAX_POLLS_PER_CLIENT,
      maxPolls: e.LIVE_MAX_POLLS,
    },
    /** While Redis is unreachable a replica enforces 1 ÷ localShareOf of each client limit alone. */
    clients: { file: e.CLIENTS_FILE, localShareOf: e.RATE_LIMIT_LOCAL_SHARE_OF },
    connectionLimits: {
      headersTimeoutMs: e.SERVER_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: e.SERVER_REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: e.SERVER_KEEP_ALIVE_TIMEOUT_MS,
      maxRequestsPerSocket: e.SERVER_MAX_REQUESTS_PER_SOCKET,
      maxHeaderBytes: e.SERVER_MAX_HEADER_BYTES,
      maxConnections: e.SERVER_MAX_CONNECTIONS,
    },
    /** Settings accepted but without effect (retired), for a warning at start. */
    warnings: e.BREAKER_WINDOW_SIZE === undefined ? [] : ['BREAKER_WINDOW_SIZE has no effect any more: the failure ratio is measured over a time window, BREAKER_WINDOW_MS'],
    trustedDocuments: { mode: e.TRUSTED_DOCUMENTS_MODE, paths: listOf(e.TRUSTED_DOCUMENTS) },
    idempotency: {
      ttlSeconds: e.IDEMPOTENCY_TTL_SECONDS,
      maxResponseBytes: e.IDEMPOTENCY_MAX_RESPONSE_BYTES,
      failOpen: e.IDEMPOTENCY_FAIL_OPEN,
      required: listOf(e.IDEMPOTENCY_REQUIRED),
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

function deepFreeze<T extends object>(value: T): T {
  for (const v of Object.values(value)) if (typeof v === 'object' && v !== null) deepFreeze(v);
  return Object.freeze(value);
}
