import type Redis from 'ioredis';
import type { Logger } from '../logger';

export interface RedisConnectionOptions {
  /** `redis://` or `rediss://` address (REDIS_URL). */
  url: string;
  logger: Logger;
  /** Longest wait for one command before it fails (default 250 ms): a request never waits long on Redis. */
  commandTimeoutMs?: number;
}

/**
 * The one Redis connection of a gateway process. Every policy shared across replicas (persisted queries,
 * idempotency records, rate-limit budgets) goes through it, and they share one story for Redis being gone:
 * commands fail fast instead of queueing while it is away (no offline queue, no per-command retries), the
 * connection keeps reconnecting in the background, and each policy decides what a failed command means for a
 * request (a miss, a 503, a local budget). `available` says whether it is connected right now.
 */
export interface RedisConnection {
  readonly client: Redis;
  /** Whether the connection is up: a policy may skip a command that would only fail. */
  readonly available: boolean;
  /**
   * Calls `onMessage` with each message published on `channel`, through a second connection of this module's own
   * (a subscribed connection can run no other command), made on the first subscription. Messages published while
   * it is disconnected are lost; it resubscribes when it is back.
   */
  subscribe(channel: string, onMessage: (message: string) => void): void;
  close(): Promise<void>;
}

export function openRedisConnection(options: RedisConnectionOptions): RedisConnection {
  const client = new (loadRedis())(options.url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: options.commandTimeoutMs ?? 250,
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
  const handlers = new Map<string, (message: string) => void>();
  let subscriber: Redis | undefined;
  const subscribed = (): Redis => {
    // Waits for its connection rather than failing: a subscription is made once, at start, and kept.
    const made = client.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null, commandTimeout: undefined });
    // The main connection warns of Redis being away; the subscriber reconnects beside it.
    made.on('error', () => undefined);
    made.on('message', (channel: string, message: string) => handlers.get(channel)?.(message));
    return made;
  };
  return {
    client,
    get available() {
      return client.status === 'ready';
    },
    subscribe(channel, onMessage) {
      handlers.set(channel, onMessage);
      subscriber ??= subscribed();
      subscriber.subscribe(channel).catch(() => undefined);
    },
    close: async () => {
      client.disconnect();
      subscriber?.disconnect();
    },
  };
}

/** ioredis is loaded only when REDIS_URL is set: a replica without Redis does not load its code. */
function loadRedis(): typeof Redis {
  return (require('ioredis') as { default: typeof Redis }).default;
}
