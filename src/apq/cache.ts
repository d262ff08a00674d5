import { InMemoryLRUCache, type KeyValueCache, type KeyValueCacheSetOptions } from '@apollo/utils.keyvaluecache';
import type Redis from 'ioredis';
import { refusal, type GraphqlResponse, type GraphqlStep } from '../pipeline/types';
import type { RedisConnection } from '../redis/connection';
import type { OperationRequest } from '../http/operationRequests';

export interface PersistedQueryCacheOptions {
  /** Bytes of query text kept in this process. */
  maxBytes: number;
  /** When set, query texts are shared with every replica through the gateway's Redis connection. */
  redis?: RedisConnection;
}

/**
 * The automatic persisted queries store: a bounded in-memory LRU, and Redis behind it when REDIS_URL is set so
 * replicas share registrations. Redis trouble is never a request's trouble: its errors are misses, its writes best
 * effort (commands fail fast while it is away, src/redis/connection.ts), and the local tier keeps serving.
 */
export function createPersistedQueryCache(options: PersistedQueryCacheOptions): KeyValueCache<string> {
  const local = new InMemoryLRUCache<string>({ maxSize: options.maxBytes, sizeCalculation: (v: string) => Buffer.byteLength(v) || 1 });
  return options.redis ? new SharedCache(local, options.redis.client) : local;
}

const REDIS_PREFIX = 'tablegraph:apq:';

/** Local first, then Redis (filling the local tier on a hit); writes go to both. Ttl in seconds, as Apollo gives it. */
class SharedCache implements KeyValueCache<string> {
  constructor(
    private readonly local: KeyValueCache<string>,
    private readonly redis: Redis,
  ) {}

  async get(key: string): Promise<string | undefined> {
    const hit = await this.local.get(key);
    if (hit !== undefined) return hit;
    const shared = (await this.redis.get(REDIS_PREFIX + key).catch(() => null)) ?? undefined;
    if (shared !== undefined) await this.local.set(key, shared);
    return shared;
  }

  async set(key: string, value: string, options?: KeyValueCacheSetOptions): Promise<void> {
    const shared = options?.ttl ? this.redis.set(REDIS_PREFIX + key, value, 'EX', Math.ceil(options.ttl)) : this.redis.set(REDIS_PREFIX + key, value);
    await Promise.all([this.local.set(key, value, options), shared.catch(() => undefined)]);
  }

  async delete(key: string): Promise<void> {
    await Promise.all([this.local.delete(key), this.redis.del(REDIS_PREFIX + key).catch(() => undefined)]);
  }
}

/** Apollo Server's key prefix in the persisted query cache (APQ_CACHE_PREFIX in its request pipeline). */
const APQ_PREFIX = 'apq:';

/**
 * Resolves every operation named by an APQ hash alone to its registered text, once per request, before any later
 * step (idempotency) reads the document: Apollo then gets the text, so what runs is what the steps judged. A hash
 * this replica cannot find is left to Apollo, which answers PERSISTED_QUERY_NOT_FOUND. After the trusted-documents
 * step, whose ids are resolved already.
 */
export function persistedQueriesStep(cache: KeyValueCache<string>): GraphqlStep {
  const resolve = async (op: OperationRequest, id: string) => {
    const text = await cache.get(APQ_PREFIX + id);
    if (text === undefined) return;
    op.query = text;
    op.resolvedBy = 'apq';
  };
  return (request, next) => {
    // Most requests name no hash: they pass on without a promise of this step's own.
    let lookups: Array<Promise<void>> | undefined;
    for (const op of request.read.operations) {
      if (op.wellFormed && !op.resolvedBy && op.ask.kind === 'id' && op.ask.via === 'persistedQuery') (lookups ??= []).push(resolve(op, op.ask.id));
    }
    return lookups ? Promise.all(lookups).then(() => next()) : next();
  };
}

/** Apollo's answer to a persisted-query hash it cannot find: 200, so Apollo Client's links read the code and send the text. */
export function persistedQueryNotFound(): GraphqlResponse {
  return refusal(200, 'PERSISTED_QUERY_NOT_FOUND', 'PersistedQueryNotFound', { 'cache-control': 'private, no-cache, must-revalidate' });
}
