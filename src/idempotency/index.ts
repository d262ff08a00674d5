import { Kind, parse } from 'graphql';
import type { Config } from '../config';
import type { GraphqlStep } from '../http/graphqlRoute';
import type { Logger } from '../logger';
import type { GatewayMetrics } from '../observability/metrics';
import type { RedisConnection } from '../redis/connection';
import { loadTypeDefs } from '../schema';
import { idempotencyStep } from './idempotencyStep';
import { MemoryIdempotencyStore } from './memoryStore';
import { RedisIdempotencyStore } from './redisStore';

export interface IdempotencyDeps {
  config: Config;
  logger: Logger;
  metrics: GatewayMetrics;
  /** The gateway's one Redis connection when REDIS_URL is set: records are then shared by every replica. */
  redis?: RedisConnection;
}

/**
 * Beyond REQUEST_TIMEOUT_MS, how long a lease outlives the request's own budget (parsing, the store's commands,
 * writing the answer): a lease that ran out while its request still ran would let a repeat run too.
 */
const LEASE_MARGIN_MS = 10_000;

/** The idempotency step as the settings describe it (server.ts puts it in the /graphql route's steps). */
export function idempotencyFromConfig(deps: IdempotencyDeps): GraphqlStep {
  const { config, metrics } = deps;
  const settings = config.idempotency;
  checkMutationNames(settings.required);
  const store = deps.redis
    ? new RedisIdempotencyStore(deps.redis)
    : new MemoryIdempotencyStore({ maxBytes: settings.memoryMaxBytes, onEvict: () => metrics.observeIdempotency('evicted') });
  return idempotencyStep({
    store,
    logger: deps.logger,
    metrics,
    ttlSeconds: settings.ttlSeconds,
    maxResponseBytes: settings.maxResponseBytes,
    failOpen: settings.failOpen,
    required: settings.required,
    leaseMs: config.requestTimeoutMs + LEASE_MARGIN_MS,
    maxLexicalTokens: config.limits.maxTokens,
  });
}

/** IDEMPOTENCY_REQUIRED names mutation fields of the schema: a misspelt one would silently require nothing. */
function checkMutationNames(names: readonly string[]): void {
  if (names.length === 0) return;
  const known = new Set<string>();
  for (const definition of parse(loadTypeDefs()).definitions) {
    if ((definition.kind === Kind.OBJECT_TYPE_DEFINITION || definition.kind === Kind.OBJECT_TYPE_EXTENSION) && definition.name.value === 'Mutation') {
      for (const field of definition.fields ?? []) known.add(field.name.value);
    }
  }
  const unknown = names.filter((name) => !known.has(name));
  if (unknown.length > 0) throw new Error(`IDEMPOTENCY_REQUIRED: not a mutation of the schema: ${unknown.join(', ')} (known: ${[...known].join(', ')})`);
}
