import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import { RELEASE_IF_HELD, type RedisConnection } from '../redis/connection';

/** A response kept for an Idempotency-Key: what a replay sends, byte for byte, and how it ended. */
const StoredResponseSchema = z.object({
  fingerprint: z.string(),
  status: z.number().int(),
  contentType: z.string().optional(),
  body: z.string(),
  // Absent in records written before the outcome was kept.
  outcome: z.enum(['success', 'partial', 'error']).optional(),
  errorCodes: z.array(z.string()).optional(),
});
export type StoredResponse = z.infer<typeof StoredResponseSchema>;

/** What taking a key found: free and now held by this request's `lease`, held by another request, or answered. */
export type TakeResult =
  | { readonly state: 'taken'; readonly lease: string }
  | { readonly state: 'running'; readonly fingerprint: string }
  | { readonly state: 'done'; readonly response: StoredResponse };

/** Where idempotency records live, by keys already scoped and hashed; unreachable, it rejects with IdempotencyStoreUnavailableError. */
export interface IdempotencyStore {
  /** Atomically: holds a free key for `leaseMs` (the lease expires by itself should the replica die), or says what holds it. */
  take(key: string, fingerprint: string, leaseMs: number): Promise<TakeResult>;
  /** Replaces the lease by the response, kept `ttlSeconds`; nothing when the lease is no longer held. */
  complete(key: string, lease: string, response: StoredResponse, ttlSeconds: number): Promise<void>;
  /** Frees the key held by `lease`, so a retry runs again; nothing when the lease is gone. */
  release(key: string, lease: string): Promise<void>;
}

export class IdempotencyStoreUnavailableError extends Error {
  constructor(options?: { cause?: unknown }) {
    super('the idempotency store is unavailable', options);
    this.name = 'IdempotencyStoreUnavailableError';
  }
}

export interface MemoryIdempotencyStoreOptions {
  /** Bytes of stored responses kept (keys, fingerprints and bodies); past it the oldest go first. */
  maxBytes: number;
  /** Told of each stored response dropped before its time to make room. */
  onEvict?: () => void;
  /** The clock, in ms. Default Date.now. */
  now?: () => number;
}

/** Fixed cost of a stored response beyond its strings (the cache's slot, the objects). */
const ENTRY_OVERHEAD = 200;

/**
 * The records of one replica, in its memory (without REDIS_URL). Stored responses are bounded by bytes, the oldest
 * dropped first; leases are never dropped before they expire, or a repeat could run while the first still runs.
 */
export class MemoryIdempotencyStore implements IdempotencyStore {
  private readonly leases = new Map<string, { fingerprint: string; lease: string; expiresAt: number }>();
  private readonly responses: LRUCache<string, StoredResponse>;
  private readonly now: () => number;

  constructor(options: MemoryIdempotencyStoreOptions) {
    this.now = options.now ?? Date.now;
    this.responses = new LRUCache<string, StoredResponse>({
      maxSize: options.maxBytes,
      sizeCalculation: (r, key) => ENTRY_OVERHEAD + key.length + r.fingerprint.length + Buffer.byteLength(r.body) + (r.contentType?.length ?? 0),
      perf: { now: () => this.now() },
      ttlResolution: 0,
      dispose: (_r, key, reason) => {
        if (reason === 'evict' && this.responses.getRemainingTTL(key) > 0) options.onEvict?.();
      },
    });
  }

  take(key: string, fingerprint: string, leaseMs: number): Promise<TakeResult> {
    // peek, not get: a replay does not make a response younger, so the oldest stored go first.
    const response = this.responses.peek(key);
    if (response) return Promise.resolve({ state: 'done', response });
    const held = this.held(key);
    if (held) return Promise.resolve({ state: 'running', fingerprint: held.fingerprint });
    const lease = randomUUID();
    this.leases.set(key, { fingerprint, lease, expiresAt: this.now() + leaseMs });
    return Promise.resolve({ state: 'taken', lease });
  }

  complete(key: string, lease: string, response: StoredResponse, ttlSeconds: number): Promise<void> {
    if (this.held(key)?.lease === lease) {
      this.leases.delete(key);
      this.responses.set(key, response, { ttl: ttlSeconds * 1000 });
    }
    return Promise.resolve();
  }

  release(key: string, lease: string): Promise<void> {
    if (this.held(key)?.lease === lease) this.leases.delete(key);
    return Promise.resolve();
  }

  private held(key: string): { fingerprint: string; lease: string } | undefined {
    const held = this.leases.get(key);
    if (!held || held.expiresAt > this.now()) return held;
    this.leases.delete(key);
    return undefined;
  }
}

/** Every idempotency record of every replica lives under this prefix, followed by the scoped key's hash. */
export const REDIS_KEY_PREFIX = 'tablegraph:idempotency:';

/** Takes a free key atomically; one already holding this very lease was taken by an earlier try whose answer was lost. */
const TAKE = `local v = redis.call('GET', KEYS[1])
if v == ARGV[1] then return false end
if v then return v end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return false`;

/** Replaces the lease by the response only while the lease is still the one this request holds. */
const COMPLETE = `if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
  return 1
end
return 0`;

const RedisRecord = z.discriminatedUnion('state', [
  z.object({ state: z.literal('running'), fingerprint: z.string(), lease: z.string() }),
  StoredResponseSchema.extend({ state: z.literal('done') }),
]);

/**
 * The records shared by every replica, through the gateway's one Redis connection. A lease is a value with a PX
 * expiry, so a replica that dies mid-request frees the key; the value names the lease, so only the request that took
 * a key can complete or release it. Any command failure is an IdempotencyStoreUnavailableError.
 */
export class RedisIdempotencyStore implements IdempotencyStore {
  constructor(private readonly redis: RedisConnection) {}

  async take(key: string, fingerprint: string, leaseMs: number): Promise<TakeResult> {
    const lease = JSON.stringify({ state: 'running', fingerprint, lease: randomUUID() });
    const found = await this.run((client) => client.eval(TAKE, 1, REDIS_KEY_PREFIX + key, lease, String(leaseMs)));
    if (found === null) return { state: 'taken', lease };
    let record: z.infer<typeof RedisRecord>;
    try {
      record = RedisRecord.parse(JSON.parse(found as string));
    } catch (err) {
      // Anything else under our prefix is a fault of the store, not of the request.
      throw new IdempotencyStoreUnavailableError({ cause: err });
    }
    if (record.state === 'running') return { state: 'running', fingerprint: record.fingerprint };
    const { state: _state, ...response } = record;
    return { state: 'done', response };
  }

  async complete(key: string, lease: string, response: StoredResponse, ttlSeconds: number): Promise<void> {
    await this.run((client) => client.eval(COMPLETE, 1, REDIS_KEY_PREFIX + key, lease, JSON.stringify({ state: 'done', ...response }), String(ttlSeconds)));
  }

  async release(key: string, lease: string): Promise<void> {
    await this.run((client) => client.eval(RELEASE_IF_HELD, 1, REDIS_KEY_PREFIX + key, lease));
  }

  /** Tries a command twice while the connection is up (a busy event loop can time out the first): every script here is safe to repeat. */
  private async run(command: (client: RedisConnection['client']) => Promise<unknown>): Promise<unknown> {
    let failure: unknown;
    for (let attempt = 0; attempt < 2 && this.redis.available; attempt += 1) {
      try {
        return await command(this.redis.client);
      } catch (err) {
        failure = err;
      }
    }
    throw new IdempotencyStoreUnavailableError({ cause: failure });
  }
}
