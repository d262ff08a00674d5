import { randomUUID } from 'node:crypto';
import type { FormattedExecutionResult } from 'graphql';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { z } from 'zod';
import { ErrorCode } from '../errors/codes';
import type { Logger } from '../logger';
import { RELEASE_IF_HELD, type RedisConnection } from '../redis/connection';
import { sha256Hex } from '../sha256';

/** One read of a live view: the selection run as a query, its errors formatted as for HTTP. */
export interface PollRun {
  result: FormattedExecutionResult;
  upstreamCalls: number;
}

/** What subscribers receive: a result, its hash, and whether it ends the subscriptions (the upstream said 401). */
const LiveEventSchema = z.object({
  result: z.custom<FormattedExecutionResult>((v) => typeof v === 'object' && v !== null),
  hash: z.string(),
  final: z.boolean(),
});
type LiveEvent = z.infer<typeof LiveEventSchema>;

/** The live subscriptions' metrics, in the gateway's registry. */
export function liveMetrics(registry: Registry) {
  const registers = [registry];
  return {
    open: new Gauge({ name: 'tablegraph_live_subscriptions', help: 'Live subscriptions open on this replica', registers }),
    polls: new Counter({
      name: 'tablegraph_live_polls_total',
      help: 'Reads of a live view (one for every subscriber of the same credentials, document and variables) by whether the result changed',
      labelNames: ['outcome'] as const,
      registers,
    }),
    events: new Counter({ name: 'tablegraph_live_events_total', help: 'Events sent to live subscribers of this replica', registers }),
    // A day view is one list call, plus one POS call per distinct check when selected.
    callsPerPoll: new Histogram({ name: 'tablegraph_live_poll_upstream_calls', help: 'Upstream calls made by one read of a live view', buckets: [0, 1, 2, 5, 10, 20, 50, 100, 150], registers }),
  };
}
type LiveMetrics = ReturnType<typeof liveMetrics>;

const PREFIX = 'tablegraph:live:';

/** Takes the lease when free, renews it when this replica holds it; 1 when held now. */
const HOLD = `local v = redis.call('GET', KEYS[1])
if v == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
if not v then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end
return 0`;

const MessageSchema = z.object({ from: z.string(), event: LiveEventSchema });

/**
 * One poll per key across replicas. The replica holding a key's lease (held for 1.5 intervals, renewed at each of
 * its reads) reads; every replica with subscribers to the key tries for the lease every half interval, so when the
 * holder dies another reads within two intervals. The holder publishes each changed result on the key's channel
 * and keeps the last one (3 intervals) for the first event of a subscriber on another replica. Keys are hashes
 * (credentials, document, variables): no credential reaches Redis.
 */
export function redisCoordinator(redis: RedisConnection, intervalMs: number) {
  const replica = randomUUID();
  const leaseMs = Math.ceil(intervalMs * 1.5);
  const keepMs = intervalMs * 3;
  const lease = (key: string) => `${PREFIX}${key}:lease`;
  const last = (key: string) => `${PREFIX}${key}:last`;
  const channel = (key: string) => `${PREFIX}${key}`;
  /** A message of this coordinator's own making; anything else is ignored. */
  const parse = (text: string | null) => {
    try {
      return text === null ? undefined : MessageSchema.parse(JSON.parse(text));
    } catch {
      return undefined;
    }
  };
  return {
    /** How often a replica that does not hold a key's lease tries to take it. */
    followerTickMs: Math.max(1, Math.floor(intervalMs / 2)),
    /** Hears the key's events from the other replicas; `stored` is the last event any replica kept. */
    async join(key: string, onEvent: (event: LiveEvent) => void) {
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
    /** Takes the key's lease, or renews it; whether this replica holds it now. */
    async hold(key: string) {
      return (await redis.client.eval(HOLD, 1, lease(key), replica, leaseMs)) === 1;
    },
    async release(key: string) {
      await redis.client.eval(RELEASE_IF_HELD, 1, lease(key), replica);
    },
    /** Sends a changed event to the other replicas and keeps it as the last; unchanged, only keeps the last alive. */
    async share(key: string, event: LiveEvent, changed: boolean) {
      if (!changed) {
        // Kept alive; written again when it went missing (Redis restarted), so another replica's first event comes.
        if ((await redis.client.pexpire(last(key), keepMs)) === 0) await redis.client.set(last(key), JSON.stringify({ from: replica, event }), 'PX', keepMs);
        return;
      }
      const text = JSON.stringify({ from: replica, event });
      const pipeline = redis.client.multi();
      // A final event (credentials refused) is not kept: the next subscriber's poll reads again.
      if (event.final) pipeline.del(last(key));
      else pipeline.set(last(key), text, 'PX', keepMs);
      await pipeline.publish(channel(key), text).exec();
    },
  };
}
type LiveCoordinator = ReturnType<typeof redisCoordinator>;

/**
 * One subscriber's events, as the async iterator graphql-ws reads. It ends on `return()` (the client completed, or
 * its socket went away) or after a final event; `onEnd` is told once.
 */
export class LiveSubscriber implements AsyncIterableIterator<FormattedExecutionResult> {
  events = 0;
  /** Upstream calls of this replica's reads while this subscriber was there (shared with its poll's other subscribers). */
  upstreamCalls = 0;
  private readonly queue: FormattedExecutionResult[] = [];
  private waiting?: (result: IteratorResult<FormattedExecutionResult>) => void;
  private ended = false;

  constructor(private readonly onEnd: (subscriber: LiveSubscriber) => void) {}

  push(event: LiveEvent): void {
    if (this.ended) return;
    this.events += 1;
    if (this.waiting) {
      this.waiting({ value: event.result, done: false });
      this.waiting = undefined;
    } else this.queue.push(event.result);
    if (event.final) this.end();
  }

  next(): Promise<IteratorResult<FormattedExecutionResult>> {
    const value = this.queue.shift();
    if (value !== undefined) return Promise.resolve({ value, done: false });
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => (this.waiting = resolve));
  }

  return(): Promise<IteratorResult<FormattedExecutionResult>> {
    this.queue.length = 0;
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    this.waiting?.({ value: undefined, done: true });
    this.waiting = undefined;
    this.onEnd(this);
  }
}

/** One key's poll: its subscribers on this replica, the last event, and its timer. */
interface Poll {
  readonly key: string;
  readonly run: () => Promise<PollRun>;
  readonly subscribers: Set<LiveSubscriber>;
  last?: LiveEvent;
  timer?: NodeJS.Timeout;
  running?: boolean;
  stopped?: boolean;
  holder?: boolean;
  coordinated?: Promise<{ stored: LiveEvent | undefined; leave(): Promise<void> } | undefined>;
}

/**
 * The shared polls: one per key (credentials, document and variables), however many subscribe. A poll reads at
 * once, then every interval, and sends an event to every subscriber only when the result's hash changed; it stops
 * as soon as its last subscriber leaves. With a coordinator (REDIS_URL), only the replica holding a key's lease
 * reads; the others receive its events.
 */
export class LivePolls {
  private readonly polls = new Map<string, Poll>();

  constructor(private readonly options: { intervalMs: number; logger: Logger; metrics: LiveMetrics; coordinator?: LiveCoordinator }) {}

  /** A subscriber to `key`'s poll, started with `run` when it is the key's first subscriber here. */
  subscribe(key: string, run: () => Promise<PollRun>, onEnd: (subscriber: LiveSubscriber) => void, _owner?: { client: string; charge(calls: number): Promise<boolean> }): LiveSubscriber {
    const existing = this.polls.get(key);
    const poll = existing ?? { key, run, subscribers: new Set() };
    const subscriber = new LiveSubscriber((s) => {
      this.leave(poll, s);
      onEnd(s);
    });
    poll.subscribers.add(subscriber);
    if (existing?.last) this.send(subscriber, existing.last);
    if (!existing) {
      this.polls.set(key, poll);
      void this.begin(poll);
    }
    return subscriber;
  }

  /** Stops every poll (their subscribers' sockets are being closed). */
  close(): void {
    for (const poll of [...this.polls.values()]) this.stop(poll);
  }

  private async begin(poll: Poll): Promise<void> {
    const { coordinator } = this.options;
    if (coordinator) {
      poll.coordinated = coordinator.join(poll.key, (event) => this.heard(poll, event)).then(
        (joined) => {
          // The last event another replica kept is a newcomer's first, however late the join answers; never after
          // an event this replica already sent (it may be newer).
          if (joined.stored && !joined.stored.final && poll.last === undefined) this.heard(poll, joined.stored);
          return joined;
        },
        (err: unknown) => {
          // Redis away: this replica reads for its own subscribers until it is back.
          this.options.logger.debug({ err }, 'live: Redis unavailable, polling locally');
          return undefined;
        },
      );
      // Redis away or slow (its subscribe connection queues while disconnected): the first read does not wait
      // longer than a follower's tick, so a subscriber gets its first event at once either way.
      let waited: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([poll.coordinated, new Promise<undefined>((resolve) => (waited = setTimeout(() => resolve(undefined), coordinator.followerTickMs)))]);
      clearTimeout(waited);
    }
    await this.tick(poll);
  }

  private async tick(poll: Poll): Promise<void> {
    if (poll.stopped) return;
    const { coordinator, intervalMs } = this.options;
    poll.holder = coordinator ? await coordinator.hold(poll.key).catch(() => true) : true;
    if (poll.stopped) {
      // Left while the lease was being taken: give it back.
      if (poll.holder) void coordinator?.release(poll.key).catch(() => undefined);
      return;
    }
    if (poll.holder && !poll.running) void this.read(poll);
    poll.timer = setTimeout(() => void this.tick(poll), poll.holder || !coordinator ? intervalMs : coordinator.followerTickMs);
    poll.timer.unref();
  }

  private async read(poll: Poll): Promise<void> {
    poll.running = true;
    let run: PollRun;
    try {
      run = await poll.run();
    } catch (err) {
      this.options.logger.error({ err }, 'live: a poll failed');
      run = { result: { errors: [{ message: 'Internal server error', extensions: { code: ErrorCode.INTERNAL_SERVER_ERROR } }] }, upstreamCalls: 0 };
    } finally {
      poll.running = false;
    }
    if (poll.stopped) return;
    // The hash is the identity of what subscribers would see, errors included; a 401 ends them: nothing later can succeed.
    const final = run.result.errors?.some((e) => e.extensions?.code === ErrorCode.UNAUTHENTICATED) ?? false;
    const event: LiveEvent = { result: run.result, hash: sha256Hex(JSON.stringify(run.result)), final };
    const changed = event.hash !== poll.last?.hash;
    this.options.metrics.polls.inc({ outcome: changed ? 'changed' : 'unchanged' });
    this.options.metrics.callsPerPoll.observe(run.upstreamCalls);
    for (const subscriber of poll.subscribers) subscriber.upstreamCalls += run.upstreamCalls;
    void this.options.coordinator?.share(poll.key, event, changed || event.final).catch(() => undefined);
    if (changed || event.final) this.deliver(poll, event);
  }

  /** An event another replica's poll read (or stored): delivered only when it differs from the last one here. */
  private heard(poll: Poll, event: LiveEvent): void {
    if (!poll.stopped && event.hash !== poll.last?.hash) this.deliver(poll, event);
  }

  private deliver(poll: Poll, event: LiveEvent): void {
    poll.last = event;
    for (const subscriber of poll.subscribers) this.send(subscriber, event);
    if (event.final) this.stop(poll);
  }

  private send(subscriber: LiveSubscriber, event: LiveEvent): void {
    subscriber.push(event);
    this.options.metrics.events.inc();
  }

  private leave(poll: Poll, subscriber: LiveSubscriber): void {
    poll.subscribers.delete(subscriber);
    if (poll.subscribers.size === 0) this.stop(poll);
  }

  private stop(poll: Poll): void {
    if (poll.stopped) return;
    poll.stopped = true;
    clearTimeout(poll.timer);
    if (this.polls.get(poll.key) === poll) this.polls.delete(poll.key);
    const { coordinator } = this.options;
    if (!coordinator) return;
    void poll.coordinated?.then((joined) => joined?.leave()).catch(() => undefined);
    if (poll.holder) void coordinator.release(poll.key).catch(() => undefined);
  }
}
