import type { FormattedExecutionResult } from 'graphql';
import { ErrorCode } from '../errors/codes';
import type { Logger } from '../logger';
import { sha256Hex } from '../sha256';
import type { LiveMetrics } from './liveMetrics';

/** One read of a live view: the selection run as a query, its errors formatted as for HTTP. */
export interface PollRun {
  result: FormattedExecutionResult;
  upstreamCalls: number;
}

/** What subscribers receive: a result, its hash, and whether it ends the subscriptions (the upstream said 401). */
export interface LiveEvent {
  result: FormattedExecutionResult;
  hash: string;
  final: boolean;
}

/** One key's share of the coordination across replicas, while this replica has subscribers to it. */
export interface CoordinatedKey {
  /** The last event any replica's poll stored, for a subscriber's first event. */
  stored: LiveEvent | undefined;
  /** Stops hearing the key's events. */
  leave(): Promise<void>;
}

/** How replicas share one poll per key (src/live/redisCoordinator.ts); none: every replica polls for its own. */
export interface LiveCoordinator {
  /** How often a replica that does not hold a key's lease tries to take it. */
  readonly followerTickMs: number;
  /** Hears the key's events from the other replicas. */
  join(key: string, onEvent: (event: LiveEvent) => void): Promise<CoordinatedKey>;
  /** Takes the key's lease, or renews it when this replica holds it; whether this replica holds it now. */
  hold(key: string): Promise<boolean>;
  release(key: string): Promise<void>;
  /** Sends a changed event to the other replicas and keeps it as the last; unchanged, only keeps the last alive. */
  share(key: string, event: LiveEvent, changed: boolean): Promise<void>;
}

export interface LivePollsOptions {
  /** Time between two reads of one key (LIVE_POLL_SECONDS). */
  intervalMs: number;
  logger: Logger;
  metrics?: LiveMetrics;
  /** With REDIS_URL: one poll per key across replicas. Default: one per key in this process. */
  coordinator?: LiveCoordinator;
}

/**
 * One subscriber's events, as the async iterator graphql-ws reads. `return()` (the client completed, or its socket
 * went away) leaves the poll; a final event is delivered and then the iterator is done.
 */
export class LiveSubscriber implements AsyncIterableIterator<FormattedExecutionResult> {
  /** Events delivered to this subscriber. */
  events = 0;
  /** Upstream calls of this replica's reads while this subscriber was there (shared with its poll's other subscribers). */
  upstreamCalls = 0;
  private readonly queue: FormattedExecutionResult[] = [];
  private waiting?: (result: IteratorResult<FormattedExecutionResult>) => void;
  private ended = false;

  constructor(private readonly leave: (subscriber: LiveSubscriber) => void) {}

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
    this.leave(this);
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private end(): void {
    this.ended = true;
    this.waiting?.({ value: undefined, done: true });
    this.waiting = undefined;
  }
}

/** One key's poll: its subscribers on this replica, the last event, and its timer. */
class Poll {
  readonly subscribers = new Set<LiveSubscriber>();
  last?: LiveEvent;
  timer?: NodeJS.Timeout;
  running = false;
  stopped = false;
  holder = false;
  coordinated?: Promise<CoordinatedKey | undefined>;

  constructor(
    readonly key: string,
    readonly run: () => Promise<PollRun>,
  ) {}
}

/**
 * The shared polls: one per key (credentials, document and variables), however many subscribe. A poll reads at
 * once, then every interval, and sends an event to every subscriber only when the result's hash changed; it stops
 * as soon as its last subscriber leaves. With a coordinator, only the replica holding a key's lease reads; the
 * others receive its events.
 */
export class LivePolls {
  private readonly polls = new Map<string, Poll>();

  constructor(private readonly options: LivePollsOptions) {}

  /** Polls currently running on this replica (a key with subscribers here). */
  get size(): number {
    return this.polls.size;
  }

  /** A subscriber to `key`'s poll, started with `run` when it is the key's first subscriber here. */
  subscribe(key: string, run: () => Promise<PollRun>): LiveSubscriber {
    let poll = this.polls.get(key);
    const subscriber = new LiveSubscriber((s) => this.leave(poll!, s));
    if (poll) {
      poll.subscribers.add(subscriber);
      if (poll.last) this.send(subscriber, poll.last);
      return subscriber;
    }
    poll = new Poll(key, run);
    poll.subscribers.add(subscriber);
    this.polls.set(key, poll);
    void this.begin(poll);
    return subscriber;
  }

  /** Stops every poll (their subscribers' sockets are being closed). */
  close(): void {
    for (const poll of [...this.polls.values()]) this.stop(poll);
  }

  private async begin(poll: Poll): Promise<void> {
    const { coordinator } = this.options;
    if (coordinator) {
      poll.coordinated = coordinator.join(poll.key, (event) => this.heard(poll, event)).catch((err: unknown) => {
        // Redis away: this replica reads for its own subscribers until it is back.
        this.options.logger.debug({ err }, 'live: Redis unavailable, polling locally');
        return undefined;
      });
      // Redis away or slow (its subscribe connection queues while disconnected): the first read does not wait
      // longer than a follower's tick, so a subscriber gets its first event at once either way.
      let waited: ReturnType<typeof setTimeout> | undefined;
      const joined = await Promise.race([poll.coordinated, new Promise<undefined>((resolve) => (waited = setTimeout(() => resolve(undefined), coordinator.followerTickMs)))]);
      clearTimeout(waited);
      if (joined?.stored && !joined.stored.final) this.heard(poll, joined.stored);
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
    const event: LiveEvent = { result: run.result, hash: hashOf(run.result), final: isUnauthenticated(run.result) };
    const changed = event.hash !== poll.last?.hash;
    this.options.metrics?.polled(changed, run.upstreamCalls);
    for (const subscriber of poll.subscribers) subscriber.upstreamCalls += run.upstreamCalls;
    void this.options.coordinator?.share(poll.key, event, changed || event.final).catch(() => undefined);
    if (changed || event.final) this.deliver(poll, event);
  }

  /** An event another replica's poll read (or stored): delivered only when it differs from the last one here. */
  private heard(poll: Poll, event: LiveEvent): void {
    if (poll.stopped || event.hash === poll.last?.hash) return;
    this.deliver(poll, event);
  }

  private deliver(poll: Poll, event: LiveEvent): void {
    poll.last = event;
    for (const subscriber of poll.subscribers) this.send(subscriber, event);
    if (event.final) this.stop(poll);
  }

  private send(subscriber: LiveSubscriber, event: LiveEvent): void {
    subscriber.push(event);
    this.options.metrics?.sent();
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

/** The identity of a result: what subscribers would see, errors included. */
function hashOf(result: FormattedExecutionResult): string {
  return sha256Hex(JSON.stringify(result));
}

/** The upstream refused the credentials: nothing later can succeed with them. */
function isUnauthenticated(result: FormattedExecutionResult): boolean {
  return result.errors?.some((e) => e.extensions?.code === ErrorCode.UNAUTHENTICATED) ?? false;
}
