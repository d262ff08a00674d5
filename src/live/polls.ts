import { randomUUID } from 'node:crypto';
import type { FormattedExecutionResult } from 'graphql';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { ErrorCode } from '../errors/codes';
import type { Logger } from '../logger';
import { sha256Hex } from '../sha256';
import { newer, type LiveEvent, type ReadResult } from './liveEvent';
import { LiveSubscriber, type PollOwner } from './liveSubscriber';
import type { LiveCoordinator, LiveMessage } from './redisCoordinator';

export { LiveSubscriber, type PollOwner } from './liveSubscriber';
export { redisCoordinator, type LiveCoordinator } from './redisCoordinator';

/** One read of a live view: the selection run as a query, its errors formatted as for HTTP. */
export interface PollRun {
  result: FormattedExecutionResult;
  upstreamCalls: number;
}

/** A subscribe over LIVE_MAX_POLLS_PER_CLIENT or LIVE_MAX_POLLS; the transport answers it with RATE_LIMITED. */
export class LivePollRefused extends Error {
  override readonly name = 'LivePollRefused';
}

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

export interface LivePollsOptions {
  intervalMs: number;
  /** LIVE_MAX_POLLS: distinct polls this process keeps. */
  maxPolls: number;
  /** LIVE_MAX_POLLS_PER_CLIENT: distinct polls one client identity keeps open here. */
  maxPollsPerClient: number;
  logger: Logger;
  metrics: LiveMetrics;
  coordinator?: LiveCoordinator;
}

/** One key's poll: its subscribers on this replica (by client too), the last event, and its timer. */
interface Poll {
  readonly key: string;
  readonly run: () => Promise<PollRun>;
  readonly subscribers: Set<LiveSubscriber>;
  /** The subscribers with an owner, by client identity: each client is charged once per read. */
  readonly owners: Map<string, Set<LiveSubscriber>>;
  last?: LiveEvent;
  timer?: NodeJS.Timeout;
  running?: boolean;
  stopped?: boolean;
  holder?: boolean;
  /** Hearing the key's channel (joined while Redis was connected). */
  listening?: { leave(): void };
  /** Subscribed to the key's channel. */
  joined?: boolean;
}

/** What a client whose budget is spent gets on each of its subscriptions, before they complete. */
const BUDGET_SPENT: FormattedExecutionResult = {
  errors: [{ message: "The client's upstream-call budget is spent: this live subscription ends. Subscribe again once it has recovered", extensions: { code: ErrorCode.RATE_LIMITED } }],
};

/**
 * The shared polls: one per key (credentials, document and variables), however many subscribe. A poll reads at
 * once, then every interval, and sends an event to every subscriber only when the result's hash changed; it stops
 * as soon as its last subscriber leaves. Each read is charged to every client subscribed. With a coordinator
 * (REDIS_URL), only the replica holding a key's lease reads, each replica charges its own subscribers' clients for
 * each read it hears of (once per client across replicas), and events go out in the order of their versions.
 */
export class LivePolls {
  private readonly polls = new Map<string, Poll>();
  /** Distinct polls each client identity has subscribers in. */
  private readonly pollsOfClient = new Map<string, number>();

  constructor(private readonly options: LivePollsOptions) {}

  /**
   * A subscriber to `key`'s poll, started with `run` when it is the key's first subscriber here. Throws
   * LivePollRefused when a new poll would exceed LIVE_MAX_POLLS, or LIVE_MAX_POLLS_PER_CLIENT for `owner`'s client.
   */
  subscribe(key: string, run: () => Promise<PollRun>, onEnd: (subscriber: LiveSubscriber) => void, owner?: PollOwner): LiveSubscriber {
    const { maxPolls, maxPollsPerClient } = this.options;
    const existing = this.polls.get(key);
    if (!existing && this.polls.size >= maxPolls) {
      throw new LivePollRefused(`This gateway process already runs ${maxPolls} live polls (LIVE_MAX_POLLS); subscribe again later or to a view already watched`);
    }
    const newForClient = owner !== undefined && !existing?.owners.has(owner.client);
    if (newForClient && (this.pollsOfClient.get(owner.client) ?? 0) >= maxPollsPerClient) {
      throw new LivePollRefused(`This client already keeps ${maxPollsPerClient} distinct live views open (LIVE_MAX_POLLS_PER_CLIENT); complete one first`);
    }
    const poll: Poll = existing ?? { key, run, subscribers: new Set(), owners: new Map() };
    const subscriber = new LiveSubscriber((s) => {
      this.leave(poll, s);
      onEnd(s);
    }, owner);
    poll.subscribers.add(subscriber);
    if (owner) {
      const mine = poll.owners.get(owner.client);
      if (mine) mine.add(subscriber);
      else {
        poll.owners.set(owner.client, new Set([subscriber]));
        this.pollsOfClient.set(owner.client, (this.pollsOfClient.get(owner.client) ?? 0) + 1);
      }
    }
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
    if (coordinator?.available) {
      const joined = this.listen(poll, coordinator);
      // Redis slow: the first read does not wait longer than a follower's tick, so a subscriber gets its first event
      // at once either way.
      let waited: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([joined, new Promise<void>((resolve) => (waited = setTimeout(resolve, coordinator.followerTickMs)))]);
      clearTimeout(waited);
    }
    await this.tick(poll);
  }

  /** Hears the key's reads on other replicas; resolves once joined (or not). */
  private listen(poll: Poll, coordinator: LiveCoordinator): Promise<void> {
    const listening = coordinator.listen(poll.key, (message) => this.heard(poll, message));
    poll.listening = listening;
    return listening.joined.then(
      (stored) => {
        if (poll.listening === listening) poll.joined = true;
        this.first(poll, stored);
      },
      (err: unknown) => {
        // Not subscribed: joined again at a later tick.
        this.options.logger.debug({ err }, 'live: joining a poll through Redis failed');
        listening.leave();
        if (poll.listening === listening) poll.listening = undefined;
        poll.joined = false;
      },
    );
  }

  /**
   * The last event another replica kept is a newcomer's first, however late it comes; never after an event this
   * replica already sent (a read of its own may be newer).
   */
  private first(poll: Poll, stored: LiveEvent | undefined): void {
    if (stored && !stored.final && poll.last === undefined) this.accept(poll, stored);
  }

  private async tick(poll: Poll): Promise<void> {
    if (poll.stopped) return;
    const { coordinator, intervalMs } = this.options;
    // Redis away (or none): this replica reads for its own subscribers, and sends Redis nothing that would queue.
    const shared = coordinator?.available === true;
    if (shared && !poll.listening) void this.listen(poll, coordinator);
    // A lease whose hold failed or timed out is not held: another replica may hold it.
    poll.holder = shared ? await coordinator.hold(poll.key, poll.last?.version[0] ?? 0).catch(() => false) : false;
    if (poll.stopped) {
      // Left while the lease was being taken: give it back.
      if (poll.holder) void coordinator?.release(poll.key).catch(() => undefined);
      return;
    }
    // A follower whose subscribers have no event yet (the holder's was published before this replica heard the
    // channel, and the kept one was not read): the kept one, until one comes.
    if (shared && !poll.holder && poll.last === undefined && poll.joined) {
      void coordinator.kept(poll.key).then((stored) => this.first(poll, stored));
    }
    const reads = poll.holder || !shared;
    if (reads && !poll.running) void this.read(poll, shared ? coordinator : undefined);
    poll.timer = setTimeout(() => void this.tick(poll), reads || !coordinator ? intervalMs : coordinator.followerTickMs);
    poll.timer.unref();
  }

  /** One read: charged to this replica's clients, and with `coordinator`, told to the others and versioned by Redis. */
  private async read(poll: Poll, coordinator: LiveCoordinator | undefined): Promise<void> {
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
    const read: ReadResult = { result: run.result, hash: sha256Hex(JSON.stringify(run.result)), final };
    const changed = read.hash !== poll.last?.hash || final;
    this.options.metrics.polls.inc({ outcome: changed ? 'changed' : 'unchanged' });
    this.options.metrics.callsPerPoll.observe(run.upstreamCalls);
    for (const subscriber of poll.subscribers) subscriber.upstreamCalls += run.upstreamCalls;
    // The calls were made whatever happens next: this replica's clients pay for them.
    const clients = [...poll.owners.keys()];
    void this.charge(poll, run.upstreamCalls, clients);
    if (!coordinator) {
      const [shared, local] = poll.last?.version ?? [0, 0];
      if (changed) this.deliver(poll, { ...read, version: [shared, local + 1] });
      return;
    }
    let version: number;
    try {
      version = await coordinator.share(poll.key, {
        read: randomUUID(),
        calls: run.upstreamCalls,
        result: changed ? read : undefined,
        clients: clients.map(clientHash),
        floor: poll.last?.version[0] ?? 0,
        last: poll.last,
      });
    } catch (err) {
      // Whether the others heard it is unknown, and so is its version: not sent here either. The last event stays
      // as it was, so the next read shares the change again, with a newer version.
      this.options.logger.debug({ err }, 'live: sharing a read through Redis failed');
      return;
    }
    if (version < 0) {
      // The lease went to another replica during the read: its events are the ones sent.
      poll.holder = false;
      return;
    }
    if (changed && !poll.stopped) this.accept(poll, { ...read, version: [version, 0] });
  }

  /** A read of another replica: its clients here are charged (once each across replicas), its change delivered. */
  private heard(poll: Poll, message: LiveMessage): void {
    if (poll.stopped) return;
    if (message.calls > 0 && poll.owners.size > 0) void this.chargeHeard(poll, message);
    if (message.event) this.accept(poll, { ...message.event, version: message.version });
  }

  /** An event delivered only when newer than the last here, and sent only when it changed what subscribers saw. */
  private accept(poll: Poll, event: LiveEvent): void {
    if (poll.stopped || (poll.last && !newer(event.version, poll.last.version))) return;
    if (poll.last?.hash === event.hash && !event.final) poll.last = event;
    else this.deliver(poll, event);
  }

  private async chargeHeard(poll: Poll, message: LiveMessage): Promise<void> {
    const byHash = new Map([...poll.owners.keys()].map((client) => [clientHash(client), client]));
    let fresh: string[];
    try {
      fresh = await this.options.coordinator!.claim(poll.key, message.read, [...byHash.keys()]);
    } catch (err) {
      // Unknown whether another replica charged them: charged here too rather than not at all.
      this.options.logger.debug({ err }, 'live: claiming the charge of a read failed');
      fresh = [...byHash.keys()];
    }
    await this.charge(poll, message.calls, fresh.flatMap((hash) => byHash.get(hash) ?? []));
  }

  /** Charges a read's calls to each of `clients`; a client whose budget is spent gets its subscriptions here ended. */
  private async charge(poll: Poll, calls: number, clients: readonly string[]): Promise<void> {
    if (calls === 0) return;
    await Promise.all(
      clients.map(async (client) => {
        const [first] = poll.owners.get(client) ?? [];
        if (!first?.owner) return;
        const allowed = await first.owner.charge(calls).catch((err: unknown) => {
          this.options.logger.error({ err }, 'live: charging a poll read failed');
          return true;
        });
        if (allowed) return;
        for (const subscriber of [...(poll.owners.get(client) ?? [])]) {
          subscriber.refuse(BUDGET_SPENT);
          this.options.metrics.events.inc();
        }
      }),
    );
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
    const client = subscriber.owner?.client;
    const mine = client === undefined ? undefined : poll.owners.get(client);
    if (client !== undefined && mine?.delete(subscriber) && mine.size === 0) {
      poll.owners.delete(client);
      const left = (this.pollsOfClient.get(client) ?? 1) - 1;
      if (left > 0) this.pollsOfClient.set(client, left);
      else this.pollsOfClient.delete(client);
    }
    if (poll.subscribers.size === 0) this.stop(poll);
  }

  private stop(poll: Poll): void {
    if (poll.stopped) return;
    poll.stopped = true;
    clearTimeout(poll.timer);
    if (this.polls.get(poll.key) === poll) this.polls.delete(poll.key);
    // At once, not once a join answers: a poll that ended is referenced by nothing while Redis is away.
    poll.listening?.leave();
    poll.listening = undefined;
    if (poll.holder && this.options.coordinator?.available) void this.options.coordinator.release(poll.key).catch(() => undefined);
  }
}

/** A client identity as Redis sees it: a hash (it may be derived from credentials). */
function clientHash(client: string): string {
  return sha256Hex(`live-client\n${client}`);
}
