import { randomUUID } from 'node:crypto';
import { RELEASE_IF_HELD, type RedisConnection } from '../redis/connection';
import type { LiveCoordinator, LiveEvent } from './polls';

const PREFIX = 'tablegraph:live:';

/** Takes the lease when free, renews it when this replica holds it; 1 when held now. */
const HOLD = `local v = redis.call('GET', KEYS[1])
if v == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
if not v then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end
return 0`;

interface Message {
  from: string;
  event: LiveEvent;
}

export interface RedisCoordinatorOptions {
  redis: RedisConnection;
  /** LIVE_POLL_SECONDS in milliseconds. */
  intervalMs: number;
}

/**
 * One poll per key across replicas. The replica holding a key's lease (held for 1.5 intervals, renewed at each of
 * its reads) reads; every replica with subscribers to the key tries for the lease every half interval, so when the
 * holder dies another reads within two intervals. The holder publishes each changed result on the key's channel
 * and keeps the last one (3 intervals) for the first event of a subscriber on another replica. Keys are hashes
 * (credentials, document, variables): no credential reaches Redis.
 */
export function redisCoordinator(options: RedisCoordinatorOptions): LiveCoordinator {
  const { redis, intervalMs } = options;
  const replica = randomUUID();
  const leaseMs = Math.ceil(intervalMs * 1.5);
  const keepMs = intervalMs * 3;
  const lease = (key: string) => `${PREFIX}${key}:lease`;
  const last = (key: string) => `${PREFIX}${key}:last`;
  const channel = (key: string) => `${PREFIX}${key}`;
  return {
    followerTickMs: Math.max(1, Math.floor(intervalMs / 2)),
    async join(key, onEvent) {
      const listener = (text: string) => {
        const message = parse(text);
        if (message && message.from !== replica) onEvent(message.event);
      };
      // Subscribed before reading the last event: a change published in between is heard, not lost.
      await redis.subscribe(channel(key), listener);
      // Without the last event a newcomer waits for the next change or its own read; the subscription stays.
      const stored = parse(await redis.client.get(last(key)).catch(() => null));
      return { stored: stored?.event, leave: () => redis.unsubscribe(channel(key), listener) };
    },
    async hold(key) {
      return (await redis.client.eval(HOLD, 1, lease(key), replica, leaseMs)) === 1;
    },
    async release(key) {
      await redis.client.eval(RELEASE_IF_HELD, 1, lease(key), replica);
    },
    async share(key, event, changed) {
      const text = JSON.stringify({ from: replica, event } satisfies Message);
      if (!changed) {
        // Kept alive; written again when it went missing (Redis restarted), so another replica's first event comes.
        if ((await redis.client.pexpire(last(key), keepMs)) === 0) await redis.client.set(last(key), text, 'PX', keepMs);
        return;
      }
      const pipeline = redis.client.multi();
      // A final event (credentials refused) is not kept: the next subscriber's poll reads again.
      if (event.final) pipeline.del(last(key));
      else pipeline.set(last(key), text, 'PX', keepMs);
      await pipeline.publish(channel(key), text).exec();
    },
  };
}

/** A message of this coordinator's own making; anything else on the channel is ignored. */
function parse(text: string | null): Message | undefined {
  if (text === null) return undefined;
  try {
    const value = JSON.parse(text) as Partial<Message> | null;
    const event = value?.event;
    if (typeof value?.from !== 'string' || typeof event?.hash !== 'string' || typeof event.final !== 'boolean' || typeof event.result !== 'object') return undefined;
    return { from: value.from, event: { hash: event.hash, final: event.final, result: event.result } };
  } catch {
    return undefined;
  }
}
