import { z } from 'zod';

const int = (def: number, min = 0) => z.coerce.number().int().min(min).default(def);
const bool = (def: boolean) =>
  z
    .enum(['true', 'false', '1', '0'])
    .transform((v) => v === 'true' || v === '1')
    .default(def);
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
  UPSTREAM_CONNECT_TIMEOUT_MS: int(2000, 1),
  UPSTREAM_HEADERS_TIMEOUT_MS: int(5000, 1),
  UPSTREAM_BODY_TIMEOUT_MS: int(5000, 1),
  UPSTREAM_CONNECTIONS: int(64, 1),
  UPSTREAM_MAX_RESPONSE_BYTES: int(5 * 1024 * 1024, 1024),
  CHECK_LOADER_CONCURRENCY: int(32, 1),
  MAX_BODY_BYTES: int(1024 * 1024, 1024),
  INTROSPECTION: bool(false),
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
  maxBodyBytes: number;
  introspection: boolean;
}>;

export type UpstreamConfig = Readonly<{
  baseUrl: string;
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  connections: number;
  maxResponseBytes: number;
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
    maxBodyBytes: e.MAX_BODY_BYTES,
    introspection: e.INTROSPECTION || e.NODE_ENV !== 'production',
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
