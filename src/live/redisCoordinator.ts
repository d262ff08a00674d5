import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { RELEASE_IF_HELD, type RedisConnection } from '../redis/connection';
import { ReadResultSchema, VersionSchema, type LiveEvent, type ReadResult } from './liveEvent';

const PREFIX = 'tablegraph:live:';

/**
 * Raises the key's version to the caller's floor (the newest it knows: a Redis that restarted forgot it), then takes
 * the lease when free or renews it when the caller holds it; 1 when held now.
 * KEYS: lease, version. ARGV: replica, lease ms, floor, keep ms.
 */
const HOLD = `local v = tonumber(redis.call('GET', KEYS[2]) or '0')
if v < tonumber(ARGV[3]) then v = tonumber(ARGV[3]) end
redis.call('SET', KEYS[2], string.format('%d', v), 'PX', ARGV[4])
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
if not holder then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end
return 0`;

/**
 * One read, told to every replica, only while the caller holds the lease (fenced: a replica that lost the lease
 * without knowing publishes nothing). A changed result takes the next version and is kept as the last event; an
 * unchanged one keeps the last event alive (written again from ARGV[9] when Redis lost it). The reader's own clients
 * are marked charged for this read. Answers the version, or -1 when the caller does not hold the lease.
 * KEYS: lease, version, last, charged. ARGV: replica, floor, keep ms, channel, read id, calls, result JSON or '',
 * final '1'/'0', last message or '', the reader's client hashes...
 */
const SHARE = `if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
local v = tonumber(redis.call('GET', KEYS[2]) or '0')
if v < tonumber(ARGV[2]) then v = tonumber(ARGV[2]) end
if ARGV[7] ~= '' then v = v + 1 end
local version = string.format('%d', v)
redis.call('SET', KEYS[2], version, 'PX', ARGV[3])
if #ARGV >= 10 then
  for i = 10, #ARGV do redis.call('SADD', KEYS[4], ARGV[i]) end
  redis.call('PEXPIRE', KEYS[4], ARGV[3])
end
local result = ARGV[7]
if result == '' then result = 'null' end
local message = '{"from":"' .. ARGV[1] .. '","read":"' .. ARGV[5] .. '","calls":' .. ARGV[6] .. ',"version":[' .. version .. ',0],"event":' .. result .. '}'
if ARGV[7] ~= '' then
  if ARGV[8] == '1' then redis.call('DEL', KEYS[3]) else redis.call('SET', KEYS[3], message, 'PX', ARGV[3]) end
elseif redis.call('PEXPIRE', KEYS[3], ARGV[3]) == 0 and ARGV[9] ~= '' then
  redis.call('SET', KEYS[3], ARGV[9], 'PX', ARGV[3])
end
redis.call('PUBLISH', ARGV[4], message)
return v`;

/** Marks clients charged for one read; answers those no replica charged yet. KEYS: charged. ARGV: keep ms, client hashes... */
const CLAIM = `local fresh = {}
for i = 2, #ARGV do
  if redis.call('SADD', KEYS[1], ARGV[i]) == 1 then fresh[#fresh + 1] = ARGV[i] end
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return fresh`;

/** A read as the holder tells it: its id, its upstream calls, and the event when the result changed. */
const MessageSchema = z.object({
  from: z.string(),
  read: z.string(),
  calls: z.number().int().nonnegative(),
  version: VersionSchema,
  event: ReadResultSchema.nullable(),
});
export type LiveMessage = z.infer<typeof MessageSchema>;

/** One read to share: `result` only when it changed (or is final); `clients`: the reader's own clients' hashes, charged by it. */
export interface SharedRead {
  read: string;
  calls: number;
  result?: ReadResult;
  clients: readonly string[];
  /** The newest version the reader knows. */
  floor: number;
  /** The reader's last event, kept again when Redis lost it. */
  last?: LiveEvent;
}

/** What a poll needs from its replicas' coordination (Redis in production; tests may give their own). */
export interface LiveCoordinator {
  /** How often a replica that does not hold a key's lease tries to take it. */
  readonly followerTickMs: number;
  /** Whether Redis is connected: without it a replica reads for its own subscribers and issues no Redis command. */
  readonly available: boolean;
  /**
   * Hears the key's reads from the other replicas. `joined` resolves once subscribed, with the last event any replica
   * kept (undefined when none or unreadable); it rejects when subscribing failed. `leave` stops hearing at once.
   */
  listen(key: string, onMessage: (message: LiveMessage) => void): { joined: Promise<LiveEvent | undefined>; leave(): void };
  /** The last event any replica kept for the key (undefined when none or unreadable). */
  kept(key: string): Promise<LiveEvent | undefined>;
  /** Takes the key's lease, or renews it; whether this replica holds it now. `floor`: the newest version it knows. */
  hold(key: string, floor: number): Promise<boolean>;
  release(key: string): Promise<void>;
  /** Tells every replica of a read; the version it took (a changed result), or -1 when this replica does not hold the lease. */
  share(key: string, read: SharedRead): Promise<number>;
  /** Of `clients` (hashes), those no replica has charged for `read` yet, now marked charged. */
  claim(key: string, read: string, clients: readonly string[]): Promise<string[]>;
}

/**
 * One poll per key across replicas. The replica holding a key's lease (held for 1.5 intervals, renewed at each of its
 * reads) reads; every replica with subscribers to the key tries for the lease every half interval, so when the holder
 * dies another reads within two intervals. The holder tells each read on the key's channel (its upstream calls, and
 * the result with the next version when it changed) and keeps the last changed one (3 intervals) for the first event
 * of a subscriber on another replica. Keys are hashes (credentials, document, variables): no credential reaches Redis.
 */
export function redisCoordinator(redis: RedisConnection, intervalMs: number): LiveCoordinator {
  const replica = randomUUID();
  const leaseMs = Math.ceil(intervalMs * 1.5);
  const keepMs = intervalMs * 3;
  const lease = (key: string) => `${PREFIX}${key}:lease`;
  const version = (key: string) => `${PREFIX}${key}:version`;
  const last = (key: string) => `${PREFIX}${key}:last`;
  const charged = (key: string, read: string) => `${PREFIX}${key}:charged:${read}`;
  const channel = (key: string) => `${PREFIX}${key}`;
  /** A message of this coordinator's own making; anything else is ignored. */
  const parse = (text: string | null) => {
    try {
      return text === null ? undefined : MessageSchema.parse(JSON.parse(text));
    } catch {
      return undefined;
    }
  };
  const eventOf = (message: LiveMessage | undefined): LiveEvent | undefined => message?.event ? { ...message.event, version: message.version } : undefined;
  return {
    followerTickMs: Math.max(1, Math.floor(intervalMs / 2)),
    get available() {
      return redis.available;
    },
    listen(key, onMessage) {
      const listener = (text: string) => {
        const message = parse(text);
        if (message && message.from !== replica) onMessage(message);
      };
      // Subscribed before reading the last event: a change published in between is heard, not lost.
      const joined = redis.subscribe(channel(key), listener).then(() => this.kept(key));
      return { joined, leave: () => void redis.unsubscribe(channel(key), listener).catch(() => undefined) };
    },
    async kept(key) {
      return eventOf(parse(await redis.client.get(last(key)).catch(() => null)));
    },
    async hold(key, floor) {
      return (await redis.client.eval(HOLD, 2, lease(key), version(key), replica, leaseMs, floor, keepMs)) === 1;
    },
    async release(key) {
      await redis.client.eval(RELEASE_IF_HELD, 1, lease(key), replica);
    },
    async share(key, read) {
      const result = read.result ? JSON.stringify(read.result) : '';
      const kept = read.last ? JSON.stringify({ from: replica, read: read.read, calls: 0, version: read.last.version, event: { result: read.last.result, hash: read.last.hash, final: read.last.final } }) : '';
      const keys = [lease(key), version(key), last(key), charged(key, read.read)];
      const args = [replica, read.floor, keepMs, channel(key), read.read, read.calls, result, read.result?.final ? '1' : '0', kept, ...read.clients];
      return Number(await redis.client.eval(SHARE, keys.length, ...keys, ...args));
    },
    async claim(key, read, clients) {
      return (await redis.client.eval(CLAIM, 1, charged(key, read), keepMs, ...clients)) as string[];
    },
  };
}
