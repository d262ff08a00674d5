import type Redis from 'ioredis';
import type { Logger } from '../logger';

/** Deletes KEYS[1] only while it holds ARGV[1] (a lease or marker this process set), atomically. */
export const RELEASE_IF_HELD = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

type Listener = (message: string) => void;

/**
 * The one Redis connection of a gateway process. Every policy shared across replicas goes through it, with one story
 * for Redis being gone: commands fail fast instead of queueing (no offline queue, no per-command retries), the
 * connection keeps reconnecting in the background, and each policy decides what a failed command means for a
 * request (a miss, a 503, a local budget). `url` is REDIS_URL.
 */
export function openRedisConnection(options: { url: string; logger: Logger }) {
  const client = new (loadRedis())(options.url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // A request never waits long on Redis.
    commandTimeout: 250,
    connectTimeout: 1000,
    retryStrategy: (times) => Math.min(times * 250, 5000),
  });
  let lastWarning = 0;
  client.on('error', (err: Error) => {
    // Reconnects are continuous while Redis is away; one warning every 30 s is enough for an operator.
    if (Date.now() - lastWarning > 30_000) {
      lastWarning = Date.now();
      options.logger.warn({ err: { message: err.message } }, 'Redis unavailable: shared state falls back as documented');
    }
  });
  client.on('ready', () => {
    if (lastWarning > 0) options.logger.info('Redis connection is back');
  });
  const listeners = new Map<string, Set<Listener>>();
  let subscriber: Redis | undefined;
  const subscriberClient = (): Redis => {
    if (!subscriber) {
      // Subscribing waits for the connection rather than failing at once: a listener is for as long as it lasts.
      // No handshake beyond AUTH and SELECT: ioredis writes a SUBSCRIBE made while connecting right away, and the
      // CLIENT SETINFO and INFO of its handshake then fail in subscriber mode, which reconnects and forgets the
      // channel (a live poll on a just-started replica heard no other replica's events).
      subscriber = client.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null, commandTimeout: undefined, enableReadyCheck: false, disableClientInfo: true });
      // The main connection already warns while Redis is away.
      subscriber.on('error', () => undefined);
      subscriber.on('message', (channel: string, message: string) => {
        for (const listener of listeners.get(channel) ?? []) listener(message);
      });
    }
    return subscriber;
  };
  return {
    client,
    /** Whether the connection is up: a policy may skip a command that would only fail. */
    get available() {
      return client.status === 'ready';
    },
    /**
     * Hears `channel` on a second, subscribe-mode connection (made on first use; ioredis subscribes it again after a
     * reconnect). Several listeners may share a channel: it is unsubscribed when its last listener goes.
     */
    async subscribe(channel: string, onMessage: Listener): Promise<void> {
      let set = listeners.get(channel);
      if (!set) listeners.set(channel, (set = new Set()));
      set.add(onMessage);
      if (set.size === 1) await subscriberClient().subscribe(channel);
    },
    async unsubscribe(channel: string, onMessage: Listener): Promise<void> {
      const set = listeners.get(channel);
      if (!set?.delete(onMessage) || set.size > 0) return;
      listeners.delete(channel);
      await subscriber?.unsubscribe(channel);
    },
    close: async () => {
      client.disconnect();
      subscriber?.disconnect();
    },
  };
}

export type RedisConnection = ReturnType<typeof openRedisConnection>;

/** ioredis is loaded only when REDIS_URL is set: a replica without Redis does not load its code. */
function loadRedis(): typeof Redis {
  return (require('ioredis') as { default: typeof Redis }).default;
}
