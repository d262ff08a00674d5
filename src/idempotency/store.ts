import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import type { RedisConnection } from '../redis/connection';

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

/**
 * What taking a key found: free and now held by this request's `lease`; held by another request; answered; or
 * `unknown`: a request with it may have reached the upstream, and its answer was never stored (its replica died).
 */
export type TakeResult =
  | { readonly state: 'taken'; readonly lease: string }
  | { readonly state: 'running'; readonly fingerprint: string }
  | { readonly state: 'unknown'; readonly fingerprint: string }
  | { readonly state: 'done'; readonly response: StoredResponse };

/** What a completion did: kept the response (durably, or not acknowledged by a replica), or found its lease gone. */
export type CompleteResult = 'stored' | 'not_durable' | 'lease_lost';

/** Whether the key now records that its request may reach the upstream; otherwise why not. */
export type MarkResult = 'recorded' | 'not_durable' | 'lease_lost';

/**
 * Where idempotency records live, by keys already scoped and hashed; unreachable, it rejects with
 * IdempotencyStoreUnavailableError. Where the store replicates (Redis with replicas), each write is trusted only once
 * a replica has it.
 */
export interface IdempotencyStore {
  /**
   * Atomically: holds a free key for `leaseMs` (the lease expires by itself should the replica die), or says what
   * holds it. A lease a replica did not acknowledge is given back and the take rejects: it could vanish in a failover.
   */
  take(key: string, fingerprint: string, leaseMs: number): Promise<TakeResult>;
  /** Holds the key `leaseMs` more, while its request still runs; false when the lease is no longer held. */
  renew(key: string, lease: string, leaseMs: number): Promise<boolean>;
  /**
   * Records, before the first byte of the request goes upstream, that it may reach the upstream: if its response is
   * never stored, the key is not freed when the lease lapses but answers `unknown` for `ttlSeconds`.
   */
  markSent(key: string, lease: string, ttlSeconds: number): Promise<MarkResult>;
  /** Replaces the lease by the response, kept `ttlSeconds`; `lease_lost` when the lease is no longer held. */
  complete(key: string, lease: string, response: StoredResponse, ttlSeconds: number): Promise<CompleteResult>;
  /** Frees the key held by `lease` (a request that reached no upstream), so a retry runs again; nothing when the lease is gone. */
  release(key: string, lease: string): Promise<void>;
}

export class IdempotencyStoreUnavailableError extends Error {
  constructor(options?: { cause?: unknown; message?: string }) {
    super(options?.message ?? 'the idempotency store is unavailable', options);
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
/** Markers of requests that may have reached the upstream, kept in memory at most. */
const MAX_SENT_MARKERS = 100_000;

/**
 * The records of one replica, in its memory (without REDIS_URL). Stored responses are bounded by bytes, the oldest
 * dropped first; leases are never dropped before they expire, or a repeat could run while the first still runs.
 */
export class MemoryIdempotencyStore implements IdempotencyStore {
  private readonly leases = new Map<string, { fingerprint: string; lease: string; expiresAt: number }>();
  /** Keys whose request may have reached the upstream, by key: its lease, until the response is stored. */
  private readonly sent: LRUCache<string, { fingerprint: string; lease: string }>;
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
    // A marker outlives its lease only when the response was never stored: rare, and bounded all the same. Bounded by
    // a size of one per marker, not by `max`: lru-cache allocates storage for `max` entries up front (2.7 MB here).
    this.sent = new LRUCache({ maxSize: MAX_SENT_MARKERS, sizeCalculation: () => 1, perf: { now: () => this.now() }, ttlResolution: 0 });
  }

  take(key: string, fingerprint: string, leaseMs: number): Promise<TakeResult> {
    // peek, not get: a replay does not make a response younger, so the oldest stored go first.
    const response = this.responses.peek(key);
    if (response) return Promise.resolve({ state: 'done', response });
    const held = this.held(key);
    if (held) return Promise.resolve({ state: 'running', fingerprint: held.fingerprint });
    const sent = this.sent.get(key);
    if (sent) return Promise.resolve({ state: 'unknown', fingerprint: sent.fingerprint });
    const lease = randomUUID();
    this.leases.set(key, { fingerprint, lease, expiresAt: this.now() + leaseMs });
    return Promise.resolve({ state: 'taken', lease });
  }

  renew(key: string, lease: string, leaseMs: number): Promise<boolean> {
    const held = this.held(key);
    if (held?.lease !== lease) return Promise.resolve(false);
    held.expiresAt = this.now() + leaseMs;
    return Promise.resolve(true);
  }

  markSent(key: string, lease: string, ttlSeconds: number): Promise<MarkResult> {
    const held = this.held(key);
    if (held?.lease !== lease) return Promise.resolve('lease_lost');
    this.sent.set(key, { fingerprint: held.fingerprint, lease }, { ttl: ttlSeconds * 1000 });
    return Promise.resolve('recorded');
  }

  complete(key: string, lease: string, response: StoredResponse, ttlSeconds: number): Promise<CompleteResult> {
    const held = this.held(key);
    // A lease that lapsed while nobody else took the key (its marker still ours) may still store its answer.
    if (held?.lease !== lease && (held || this.sent.peek(key)?.lease !== lease)) return Promise.resolve('lease_lost');
    this.leases.delete(key);
    this.sent.delete(key);
    this.responses.set(key, response, { ttl: ttlSeconds * 1000 });
    return Promise.resolve('stored');
  }

  release(key: string, lease: string): Promise<void> {
    if (this.held(key)?.lease === lease) this.leases.delete(key);
    if (this.sent.peek(key)?.lease === lease) this.sent.delete(key);
    return Promise.resolve();
  }

  private held(key: string): { fingerprint: string; lease: string; expiresAt: number } | undefined {
    const held = this.leases.get(key);
    if (!held || held.expiresAt > this.now()) return held;
    this.leases.delete(key);
    return undefined;
  }
}

/** Every idempotency record of every replica lives under this prefix, followed by the scoped key's hash. */
export const REDIS_KEY_PREFIX = 'tablegraph:idempotency:';

/** The marker of a key whose request may have reached the upstream: its lease, kept until the response is stored. */
const SENT_SUFFIX = ':sent';

/**
 * Takes a free key atomically; one already holding this very lease was taken by an earlier try whose answer was lost.
 * A key with no record but a marker was sent upstream by a request whose answer was never stored: {2, marker}.
 */
const TAKE = `local v = redis.call('GET', KEYS[1])
if v == ARGV[1] then return false end
if v then return {1, v} end
local m = redis.call('GET', KEYS[2])
if m then return {2, m} end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return false`;

/** Holds the lease longer, only while it is still the one this request holds. */
const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`;

/** Marks the key sent upstream (for the TTL of a response), only while this request holds it. */
const MARK_SENT = `if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[2], ARGV[1], 'EX', ARGV[2])
  return 1
end
return 0`;

/**
 * Replaces the lease by the response while the lease is still the one this request holds, or when it lapsed and no
 * one took the key since (the marker is still this request's).
 */
const COMPLETE = `local v = redis.call('GET', KEYS[1])
if v == ARGV[1] or (not v and redis.call('GET', KEYS[2]) == ARGV[1]) then
  redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
  redis.call('DEL', KEYS[2])
  return 1
end
if v == ARGV[2] then return 1 end
return 0`;

/** Frees the key and its marker, each only while it is this request's. */
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
if redis.call('GET', KEYS[2]) == ARGV[1] then redis.call('DEL', KEYS[2]) end
return 0`;

const RunningRecord = z.object({ state: z.literal('running'), fingerprint: z.string(), lease: z.string() });
const RedisRecord = z.discriminatedUnion('state', [RunningRecord, StoredResponseSchema.extend({ state: z.literal('done') })]);
const TakeReply = z.union([z.null(), z.tuple([z.literal(1), z.string()]), z.tuple([z.literal(2), z.string()])]);

/**
 * The records shared by every replica, through the gateway's one Redis module, on its connection for durable writes:
 * each write is trusted only once a replica acknowledged it (WAIT), where the primary has replicas. A lease is a
 * value with a PX expiry, renewed while its request runs, so a replica that dies mid-request frees the key, unless
 * the request was marked sent upstream; the value names the lease, so only the request that took a key can mark,
 * complete or release it. Any command failure is an IdempotencyStoreUnavailableError.
 */
export class RedisIdempotencyStore implements IdempotencyStore {
  constructor(private readonly redis: RedisConnection) {}

  async take(key: string, fingerprint: string, leaseMs: number): Promise<TakeResult> {
    const lease = JSON.stringify({ state: 'running', fingerprint, lease: randomUUID() });
    const keys = this.keys(key);
    const found = await this.run((client) => client.eval(TAKE, 2, ...keys, lease, String(leaseMs)));
    let reply: z.infer<typeof TakeReply>;
    let record: z.infer<typeof RedisRecord>;
    try {
      reply = TakeReply.parse(found);
      if (reply === null) {
        if (await this.replicated()) return { state: 'taken', lease };
        // A lease only the primary has could vanish in a failover and let a retry run too: given back, refused.
        await this.run((client) => client.eval(RELEASE, 2, ...keys, lease)).catch(() => undefined);
        throw new IdempotencyStoreUnavailableError({ message: 'no Redis replica acknowledged the lease in time (WAIT)' });
      }
      record = (reply[0] === 2 ? RunningRecord : RedisRecord).parse(JSON.parse(reply[1]));
    } catch (err) {
      if (err instanceof IdempotencyStoreUnavailableError) throw err;
      // Anything else under our prefix is a fault of the store, not of the request.
      throw new IdempotencyStoreUnavailableError({ cause: err });
    }
    if (reply[0] === 2) return { state: 'unknown', fingerprint: record.fingerprint };
    if (record.state === 'running') return { state: 'running', fingerprint: record.fingerprint };
    const { state: _state, ...response } = record;
    return { state: 'done', response };
  }

  async renew(key: string, lease: string, leaseMs: number): Promise<boolean> {
    return (await this.run((client) => client.eval(RENEW, 1, REDIS_KEY_PREFIX + key, lease, String(leaseMs)))) === 1;
  }

  async markSent(key: string, lease: string, ttlSeconds: number): Promise<MarkResult> {
    const marked = await this.run((client) => client.eval(MARK_SENT, 2, ...this.keys(key), lease, String(ttlSeconds)));
    if (marked !== 1) return 'lease_lost';
    return (await this.replicated()) ? 'recorded' : 'not_durable';
  }

  async complete(key: string, lease: string, response: StoredResponse, ttlSeconds: number): Promise<CompleteResult> {
    const stored = await this.run((client) => client.eval(COMPLETE, 2, ...this.keys(key), lease, JSON.stringify({ state: 'done', ...response }), String(ttlSeconds)));
    if (stored !== 1) return 'lease_lost';
    return (await this.replicated()) ? 'stored' : 'not_durable';
  }

  async release(key: string, lease: string): Promise<void> {
    await this.run((client) => client.eval(RELEASE, 2, ...this.keys(key), lease));
  }

  private keys(key: string): [string, string] {
    return [REDIS_KEY_PREFIX + key, REDIS_KEY_PREFIX + key + SENT_SUFFIX];
  }

  /** Whether a replica has this connection's writes; a failed WAIT is the store's being unavailable. */
  private async replicated(): Promise<boolean> {
    try {
      return await this.redis.replicated();
    } catch (err) {
      throw new IdempotencyStoreUnavailableError({ cause: err });
    }
  }

  /** Tries a command twice while the connection is up (a busy event loop can time out the first): every script here is safe to repeat. */
  private async run(command: (client: RedisConnection['durableClient']) => Promise<unknown>): Promise<unknown> {
    let failure: unknown;
    for (let attempt = 0; attempt < 2 && this.redis.durableAvailable; attempt += 1) {
      try {
        return await command(this.redis.durableClient);
      } catch (err) {
        failure = err;
      }
    }
    throw new IdempotencyStoreUnavailableError({ cause: failure });
  }
}
