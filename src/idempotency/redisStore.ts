import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { RELEASE_IF_HELD, type RedisConnection } from '../redis/connection';
import { IdempotencyStoreUnavailableError, type IdempotencyStore, type StoredResponse, type TakeResult } from './store';

/** Every idempotency record of every replica lives under this prefix, followed by the scoped key's hash. */
export const REDIS_KEY_PREFIX = 'tablegraph:idempotency:';

/**
 * GET, and SET with a lease when nothing was there: one atomic step, so two replicas can never both take a key. A
 * key already holding this very lease was taken by an earlier try of this take whose answer was lost: it is ours.
 */
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

/** Tries of one command: a second only after a failure on a connection that is still up. */
const COMMAND_ATTEMPTS = 2;

const Record = z.discriminatedUnion('state', [
  z.object({ state: z.literal('running'), fingerprint: z.string(), lease: z.string() }),
  z.object({
    state: z.literal('done'),
    fingerprint: z.string(),
    status: z.number().int(),
    contentType: z.string().optional(),
    body: z.string(),
    outcome: z.enum(['success', 'partial', 'error']).optional(),
    errorCodes: z.array(z.string()).optional(),
  }),
]);

/**
 * The idempotency records shared by every replica, through the gateway's one Redis connection
 * (src/redis/connection.ts). A lease is a value with a PX expiry, so a replica that dies mid-request frees the key
 * when the lease runs out; its value is also the lease's name, so only the request that took a key can complete or
 * release it. Any command failure (Redis away, too slow) is an IdempotencyStoreUnavailableError.
 */
export class RedisIdempotencyStore implements IdempotencyStore {
  constructor(private readonly redis: RedisConnection) {}

  async take(key: string, fingerprint: string, leaseMs: number): Promise<TakeResult> {
    const lease = JSON.stringify({ state: 'running', fingerprint, lease: randomUUID() });
    const found = await this.run((client) => client.eval(TAKE, 1, REDIS_KEY_PREFIX + key, lease, String(leaseMs)));
    if (found === null) return { state: 'taken', lease };
    const record = parseRecord(found);
    if (record.state === 'running') return { state: 'running', fingerprint: record.fingerprint };
    const { state: _state, ...response } = record;
    return { state: 'done', response };
  }

  async complete(key: string, lease: string, response: StoredResponse, ttlSeconds: number): Promise<void> {
    const value = JSON.stringify({ state: 'done', ...response });
    await this.run((client) => client.eval(COMPLETE, 1, REDIS_KEY_PREFIX + key, lease, value, String(ttlSeconds)));
  }

  async release(key: string, lease: string): Promise<void> {
    await this.run((client) => client.eval(RELEASE_IF_HELD, 1, REDIS_KEY_PREFIX + key, lease));
  }

  /**
   * Runs a command, once more when it failed while the connection stayed up (a reply later than the connection's
   * command timeout, as a busy event loop makes it): every script here is safe to repeat, the take included.
   */
  private async run(command: (client: RedisConnection['client']) => Promise<unknown>): Promise<unknown> {
    let failure: unknown;
    for (let attempt = 0; attempt < COMMAND_ATTEMPTS; attempt += 1) {
      // While the connection is down a command could only fail (no offline queue): say so without trying.
      if (!this.redis.available) break;
      try {
        return await command(this.redis.client);
      } catch (err) {
        failure = err;
      }
    }
    throw new IdempotencyStoreUnavailableError({ cause: failure });
  }
}

/** A record as this module wrote it; anything else under our prefix is a fault of the store, not of the request. */
function parseRecord(value: unknown): z.infer<typeof Record> {
  try {
    return Record.parse(JSON.parse(String(value)));
  } catch (err) {
    throw new IdempotencyStoreUnavailableError({ cause: err });
  }
}
