import type { default as Redis, RedisOptions } from 'ioredis';
import type { Logger } from '../logger';

/** Deletes KEYS[1] only while it holds ARGV[1] (a lease or marker this process set), atomically. */
export const RELEASE_IF_HELD = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

type Listener = (message: string) => void;

/** Redis behind Sentinel (REDIS_SENTINELS, REDIS_SENTINEL_NAME, REDIS_SENTINEL_PASSWORD). */
export interface SentinelSettings {
  sentinels: readonly { host: string; port: number }[];
  /** The master name the Sentinels monitor. */
  name: string;
  password?: string;
}

export interface RedisConnectionOptions {
  /** REDIS_URL; with `sentinel` it only lends its user, password and database number. */
  url?: string;
  sentinel?: SentinelSettings;
  logger: Logger;
  /** How long a durable write waits for a replica's acknowledgement (WAIT). Default 500. */
  waitTimeoutMs?: number;
  /** How often the primary's connected replicas are counted again. Default 5000. */
  replicaCheckMs?: number;
}

/** How long a connection that ioredis gave up waits before it connects again. */
const RECONNECT_AFTER_END_MS = 200;

/** A reconnect after a few quick tries: the primary a failover promotes is reached within a second of being known. */
const reconnectDelay = (times: number) => Math.min(times * 100, 1000);

/**
 * A command refused with READONLY went to a replica: the primary this connection knew was demoted (a failover, or a
 * managed Redis's endpoint that moved). Reconnecting asks Sentinel (or DNS) again instead of retrying the old one.
 */
const reconnectOnError = (err: Error) => err.message.startsWith('READONLY');

/** ioredis options for REDIS_URL, or for Sentinel with REDIS_URL's user, password and database. */
function connectionOptions(options: RedisConnectionOptions): RedisOptions {
  const common: RedisOptions = {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // A request never waits long on Redis.
    commandTimeout: 250,
    connectTimeout: 1000,
    retryStrategy: reconnectDelay,
    reconnectOnError,
  };
  const { sentinel, url } = options;
  if (!sentinel) return common;
  const lent = url === undefined ? undefined : new URL(url);
  const db = lent && /^\/\d+$/.test(lent.pathname) ? Number(lent.pathname.slice(1)) : 0;
  return {
    ...common,
    sentinels: sentinel.sentinels.map(({ host, port }) => ({ host, port })),
    name: sentinel.name,
    role: 'master',
    ...(sentinel.password === undefined ? {} : { sentinelPassword: sentinel.password }),
    ...(lent?.username ? { username: decodeURIComponent(lent.username) } : {}),
    ...(lent?.password ? { password: decodeURIComponent(lent.password) } : {}),
    ...(lent?.protocol === 'rediss:' ? { tls: {}, enableTLSForSentinelMode: true } : {}),
    db,
    // Every Sentinel tried in turn, then again after a short pause: the gateway never gives up on finding the primary.
    sentinelRetryStrategy: reconnectDelay,
    sentinelMaxConnections: 10,
    // Hears `+switch-master` from the Sentinels and reconnects at once, instead of waiting for its socket to fail.
    failoverDetector: true,
  };
}

/**
 * The one Redis connection of a gateway process. Every policy shared across replicas goes through it, with one story
 * for Redis being gone: commands fail fast instead of queueing (no offline queue, no per-command retries), the
 * connection keeps reconnecting in the background, and each policy decides what a failed command means for a
 * request (a miss, a 503, a local budget). Behind Sentinel, every connection (commands, durable writes, pub/sub) asks
 * the Sentinels for the current primary on each (re)connect, and a failover makes them reconnect.
 */
export function openRedisConnection(options: RedisConnectionOptions) {
  if (options.url === undefined && options.sentinel === undefined) throw new Error('openRedisConnection needs REDIS_URL or REDIS_SENTINELS');
  const Redis = loadRedis();
  const settings = connectionOptions(options);
  const client = options.sentinel ? new Redis(settings) : new Redis(options.url!, settings);
  let closing = false;
  /**
   * ioredis gives a connection up ('end') when a Sentinel's failover notice cuts a reconnect that was asking the
   * Sentinels ("Connection is closed."): seen in one failover test run of three. The gateway never gives up, so a
   * connection that ended without `close` connects again after a short pause; `then` runs once it is back.
   */
  const keepConnecting = (redis: Redis, then?: () => void) => {
    redis.on('end', () => {
      if (closing) return;
      setTimeout(() => {
        if (closing || redis.status !== 'end') return;
        redis.connect().then(then, () => undefined);
      }, RECONNECT_AFTER_END_MS).unref();
    });
  };
  keepConnecting(client);
  const waitTimeoutMs = options.waitTimeoutMs ?? 500;
  // Writes that must survive a failover go through their own connection: WAIT holds the connection it is sent on
  // until a replica acknowledges, and other policies' commands must not queue behind it.
  const durable = client.duplicate({ commandTimeout: waitTimeoutMs + 250 });
  // The main connection already warns while Redis is away.
  durable.on('error', () => undefined);
  keepConnecting(durable);
  let lastWarning = 0;
  client.on('error', (err: Error) => {
    // Reconnects are continuous while Redis is away; one warning every 30 s is enough for an operator.
    if (Date.now() - lastWarning > 30_000) {
      lastWarning = Date.now();
      options.logger.warn({ err: { message: err.message } }, 'Redis unavailable: shared state falls back as documented');
    }
  });
  // How many replicas the primary has connected, as last read; a write is waited for only where there are some.
  let replicas = 0;
  const countReplicas = async (): Promise<number> => {
    try {
      const info = await durable.info('replication');
      replicas = Number(/^connected_slaves:(\d+)/m.exec(info)?.[1] ?? 0);
    } catch {
      // Unknown until the next look: the count read last stands (a write then waits, or fails, as before).
    }
    return replicas;
  };
  client.on('ready', () => {
    if (lastWarning > 0) options.logger.info('Redis connection is back');
  });
  // Each (re)connect may be to another primary, with other replicas.
  durable.on('ready', () => void countReplicas());
  const replicaCheck = setInterval(() => {
    if (durable.status === 'ready') void countReplicas();
  }, options.replicaCheckMs ?? 5000);
  replicaCheck.unref();
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
      // Back from 'end', it listens again to every channel that has listeners.
      const listening = subscriber;
      keepConnecting(listening, () => {
        if (listeners.size > 0) listening.subscribe(...listeners.keys()).catch(() => undefined);
      });
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
    /** Whether the connection for durable writes is up. */
    get durableAvailable() {
      return durable.status === 'ready';
    },
    /** The primary's connected replicas as last counted (INFO replication, every few seconds and on each connect). */
    get replicas() {
      return replicas;
    },
    /** Counts the primary's connected replicas now. */
    countReplicas,
    /**
     * The connection kept for writes that must survive a failover: WAIT (`replicated`) covers every write made on it.
     * Commands fail fast as on `client`, with time for a WAIT.
     */
    durableClient: durable,
    /**
     * Where the primary has replicas connected, waits (WAIT 1, at most REDIS_WAIT_TIMEOUT_MS) until one has every
     * write `durableClient` made so far; false when none acknowledged in time (those writes may be lost in a
     * failover). True at once where the primary has no replica. A failed command rejects.
     */
    async replicated(): Promise<boolean> {
      if (replicas === 0) return true;
      const acknowledged = await durable.wait(1, waitTimeoutMs);
      // No replica has it: perhaps none is left. Counted again, so a lone primary's writes are not refused for long.
      if (acknowledged < 1) void countReplicas();
      return acknowledged >= 1;
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
      closing = true;
      clearInterval(replicaCheck);
      client.disconnect();
      durable.disconnect();
      subscriber?.disconnect();
    },
  };
}

export type RedisConnection = ReturnType<typeof openRedisConnection>;

/** ioredis is loaded only when Redis is configured: a replica without Redis does not load its code. */
function loadRedis(): typeof Redis {
  return (require('ioredis') as { default: typeof Redis }).default;
}
