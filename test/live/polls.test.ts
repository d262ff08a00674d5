import { randomUUID } from 'node:crypto';
import type { FormattedExecutionResult } from 'graphql';
import { Registry } from 'prom-client';
import { createLogger } from '../../src/logger';
import type { LiveEvent } from '../../src/live/liveEvent';
import { LivePollRefused, LivePolls, liveMetrics, redisCoordinator, type LiveCoordinator, type LiveSubscriber, type PollOwner, type PollRun } from '../../src/live/polls';
import { openRedisConnection, type RedisConnection } from '../../src/redis/connection';
import { eventually } from '../support/gatewayProcess';
import { freePort } from '../support/net';
import { describeWithRedis, startRedisServer, type RedisServer } from '../support/redisServer';

const logger = createLogger({ level: 'silent' });
const OLD: LiveEvent = { result: { data: { v: 'old' } }, hash: 'old', final: false, version: [1, 0] };
const settled = () => new Promise((resolve) => setTimeout(resolve, 20));

function livePolls(options: { coordinator?: LiveCoordinator; intervalMs?: number; maxPolls?: number; maxPollsPerClient?: number } = {}) {
  return new LivePolls({ intervalMs: 60_000, maxPolls: 2000, maxPollsPerClient: 20, logger, metrics: liveMetrics(new Registry()), ...options });
}

/** A coordinator whose join answers only when the test says, as Redis does when it is slow; it shares nothing. */
function slowCoordinator(hold: () => Promise<boolean>) {
  let answer: (stored: LiveEvent | undefined) => void = () => undefined;
  let version = 1;
  const coordinator: LiveCoordinator = {
    followerTickMs: 5,
    available: true,
    listen: () => ({ joined: new Promise<LiveEvent | undefined>((resolve) => (answer = resolve)), leave: () => undefined }),
    kept: () => Promise.resolve(undefined),
    hold,
    release: () => Promise.resolve(),
    share: () => Promise.resolve((version += 1)),
    claim: (_key, _read, clients) => Promise.resolve([...clients]),
  };
  return { coordinator, join: (stored: LiveEvent) => answer(stored) };
}

/** A read whose data is `n`, the number of reads so far, so every read is a change; `calls` upstream calls each. */
function counting(calls = 2) {
  const state = { reads: 0 };
  const run = (): Promise<PollRun> => Promise.resolve({ result: { data: { n: (state.reads += 1) } }, upstreamCalls: calls });
  return Object.assign(state, { run });
}

/** A client whose upstream-call budget holds `budget` calls; its charges, as the budget saw them. */
function client(name: string, budget = Number.POSITIVE_INFINITY) {
  const charges: number[] = [];
  const owner: PollOwner = {
    client: name,
    charge: (calls) => {
      charges.push(calls);
      return Promise.resolve(charges.reduce((a, b) => a + b, 0) <= budget);
    },
  };
  return { owner, charges, charged: () => charges.reduce((a, b) => a + b, 0) };
}

async function take(subscriber: LiveSubscriber): Promise<FormattedExecutionResult | undefined> {
  const { value, done } = await subscriber.next();
  return done ? undefined : value;
}

describe('a live poll whose Redis join answers late', () => {
  it('sends the kept event as the first event of a follower', async () => {
    const { coordinator, join } = slowCoordinator(() => Promise.resolve(false));
    const polls = livePolls({ coordinator });
    const subscriber = polls.subscribe('key', counting().run, () => undefined);
    await settled();
    expect(subscriber.events).toBe(0);
    join(OLD);
    expect(await take(subscriber)).toEqual({ data: { v: 'old' } });
    polls.close();
  });

  it('never sends the kept event after the newer one this replica read', async () => {
    const { coordinator, join } = slowCoordinator(() => Promise.resolve(true));
    const polls = livePolls({ coordinator });
    const subscriber = polls.subscribe('key', counting().run, () => undefined);
    expect(await take(subscriber)).toEqual({ data: { n: 1 } });
    join(OLD);
    await settled();
    expect(subscriber.events).toBe(1);
    polls.close();
  });
});

describe('a live poll of a follower whose join found no kept event', () => {
  it('sends the kept event as its first once there is one', async () => {
    const redis: { kept?: LiveEvent } = {};
    const coordinator: LiveCoordinator = {
      ...slowCoordinator(() => Promise.resolve(false)).coordinator,
      listen: () => ({ joined: Promise.resolve(undefined), leave: () => undefined }),
      kept: () => Promise.resolve(redis.kept),
    };
    const polls = livePolls({ coordinator, intervalMs: 10 });
    const subscriber = polls.subscribe('key', counting().run, () => undefined);
    await settled();
    expect(subscriber.events).toBe(0);
    redis.kept = OLD;
    expect(await take(subscriber)).toEqual({ data: { v: 'old' } });
    polls.close();
  });
});

describe('a live poll whose lease could not be confirmed', () => {
  it.each([
    ['fails', () => Promise.reject(new Error('Command timed out'))],
    ['is refused', () => Promise.resolve(false)],
  ])('does not read when the hold %s', async (_what, hold) => {
    const { coordinator } = slowCoordinator(hold);
    const polls = livePolls({ coordinator, intervalMs: 10 });
    const reads = counting();
    polls.subscribe('key', reads.run, () => undefined);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(reads.reads).toBe(0);
    polls.close();
  });
});

describe('a live subscriber', () => {
  it('holds only the newest event a slow reader has not taken, and never an older one after it', async () => {
    const polls = livePolls({ intervalMs: 5 });
    const reads = counting();
    const subscriber = polls.subscribe('key', reads.run, () => undefined);
    expect(await eventually(() => reads.reads >= 20)).toBe(true);
    const first = (await take(subscriber))?.data as { n: number };
    expect(first.n).toBeGreaterThanOrEqual(20);
    // Nothing queued behind it: the next event is a read made after it.
    const second = (await take(subscriber))?.data as { n: number };
    expect(second.n).toBeGreaterThan(first.n);
    subscriber.push({ result: { data: { n: 0 } }, hash: 'older', final: false, version: [0, 1] });
    expect(((await take(subscriber))?.data as { n: number }).n).toBeGreaterThan(second.n);
    polls.close();
  });
});

describe('the live poll caps', () => {
  it('refuse a client a poll over LIVE_MAX_POLLS_PER_CLIENT, but not joining a poll it is in already, nor another client', () => {
    const polls = livePolls({ maxPollsPerClient: 2 });
    const venue = client('venue').owner;
    polls.subscribe('a', counting().run, () => undefined, venue);
    const b = polls.subscribe('b', counting().run, () => undefined, venue);
    expect(() => polls.subscribe('c', counting().run, () => undefined, venue)).toThrow(LivePollRefused);
    expect(() => polls.subscribe('c', counting().run, () => undefined, venue)).toThrow(/LIVE_MAX_POLLS_PER_CLIENT/);
    expect(() => polls.subscribe('a', counting().run, () => undefined, venue)).not.toThrow();
    expect(() => polls.subscribe('c', counting().run, () => undefined, client('other').owner)).not.toThrow();
    // A client that left a poll may open another.
    void b.return();
    expect(() => polls.subscribe('c', counting().run, () => undefined, venue)).not.toThrow();
    polls.close();
  });

  it('refuse a new poll over LIVE_MAX_POLLS, but not joining an existing one', () => {
    const polls = livePolls({ maxPolls: 2 });
    polls.subscribe('a', counting().run, () => undefined, client('one').owner);
    polls.subscribe('b', counting().run, () => undefined);
    expect(() => polls.subscribe('c', counting().run, () => undefined, client('two').owner)).toThrow(/LIVE_MAX_POLLS\b/);
    expect(() => polls.subscribe('a', counting().run, () => undefined, client('two').owner)).not.toThrow();
    polls.close();
  });
});

describe('a live poll paid for by its clients', () => {
  it('charges each read once to each client subscribed, ends a client whose budget is spent with RATE_LIMITED, and reads on for the others', async () => {
    const polls = livePolls({ intervalMs: 10 });
    const reads = counting(2);
    const spender = client('spender', 6);
    const payer = client('payer');
    const ended: LiveSubscriber[] = [];
    const spent = [polls.subscribe('key', reads.run, (s) => ended.push(s), spender.owner), polls.subscribe('key', reads.run, (s) => ended.push(s), spender.owner)];
    const paying = polls.subscribe('key', reads.run, () => undefined, payer.owner);

    const events: Array<FormattedExecutionResult | undefined> = [];
    for (let result = await take(spent[0]); result; result = await take(spent[0])) events.push(result);
    expect(events.at(-1)).toEqual({ errors: [{ message: expect.stringMatching(/budget is spent/), extensions: { code: 'RATE_LIMITED' } }] });
    expect(events.slice(0, -1).every((e) => e?.data !== undefined)).toBe(true);
    expect(await eventually(() => ended.length === 2)).toBe(true);
    // Once per read for the client, not once per subscription: the read that went over the budget is its fourth.
    expect(spender.charges).toEqual([2, 2, 2, 2]);

    const before = reads.reads;
    expect(await eventually(() => reads.reads >= before + 3)).toBe(true);
    expect(((await take(paying))?.data as { n: number }).n).toBeGreaterThan(before);
    expect(spender.charges).toHaveLength(4);
    expect(await eventually(() => payer.charged() === 2 * reads.reads)).toBe(true);
    polls.close();
  });
});

describe('live polls while Redis is unreachable', () => {
  it('read for their own subscribers and send Redis nothing, so an ended poll is referenced by nothing', async () => {
    const connection = openRedisConnection({ url: `redis://127.0.0.1:${await freePort()}`, logger });
    const real = redisCoordinator(connection, 10);
    const asked: string[] = [];
    // The real coordinator, counting what the polls ask of it.
    const coordinator = new Proxy(real, {
      get: (target, name, receiver) => {
        const value: unknown = Reflect.get(target, name, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          asked.push(String(name));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const polls = livePolls({ coordinator, intervalMs: 10 });
    for (let i = 0; i < 50; i += 1) {
      const subscriber = polls.subscribe(`key ${i}`, counting().run, () => undefined);
      expect(await take(subscriber)).toEqual({ data: { n: 1 } });
      await subscriber.return();
    }
    expect(asked).toEqual([]);
    polls.close();
    await connection.close();
  });
});

describeWithRedis('live polls of two replicas on one Redis')('live polls of two replicas on one Redis', () => {
  let redis: RedisServer;
  const connections: RedisConnection[] = [];
  const running: LivePolls[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
  });

  let key: string;
  beforeEach(() => {
    // Each test's own poll: the last one's lease and kept event outlive it in Redis for a few intervals.
    key = randomUUID();
  });

  afterEach(async () => {
    for (const polls of running.splice(0)) polls.close();
    await Promise.all(connections.splice(0).map((c) => c.close()));
  });

  afterAll(async () => {
    await redis.stop();
  });

  /** A replica: its own Redis connections, its own coordinator, its own polls. */
  async function replica(intervalMs = 100): Promise<LivePolls> {
    const connection = openRedisConnection({ url: redis.url, logger });
    connections.push(connection);
    expect(await eventually(() => connection.available)).toBe(true);
    const polls = livePolls({ coordinator: redisCoordinator(connection, intervalMs), intervalMs });
    running.push(polls);
    return polls;
  }

  it('charge each read to every client subscribed on either replica, once per client', async () => {
    const [one, two] = [await replica(), await replica()];
    const reads = counting(3);
    const [onOne, onTwo, onBoth] = [client('on-one'), client('on-two'), client('on-both')];
    const subscribers = [
      one.subscribe(key, reads.run, () => undefined, onOne.owner),
      two.subscribe(key, reads.run, () => undefined, onTwo.owner),
      one.subscribe(key, reads.run, () => undefined, onBoth.owner),
      two.subscribe(key, reads.run, () => undefined, onBoth.owner),
    ];
    expect(await eventually(() => reads.reads >= 5)).toBe(true);
    // Every read is paid for by each of the three clients, once: never twice by the one subscribed on both replicas.
    expect(await eventually(() => [onOne, onTwo, onBoth].every((c) => c.charged() === 3 * reads.reads))).toBe(true);
    for (const s of subscribers) expect(await take(s)).toMatchObject({ data: { n: expect.any(Number) } });
  });

  it('end the subscriptions of a client whose budget is spent on the replica that does not read, and go on for the other', async () => {
    const [one, two] = [await replica(), await replica()];
    const reads = counting(3);
    const payer = client('payer');
    const spender = client('spender', 9);
    const paying = one.subscribe(key, reads.run, () => undefined, payer.owner);
    expect(await take(paying)).toMatchObject({ data: { n: 1 } });
    const spent = two.subscribe(key, reads.run, () => undefined, spender.owner);
    let last: FormattedExecutionResult | undefined;
    for (let result = await take(spent); result; result = await take(spent)) last = result;
    expect(last).toEqual({ errors: [{ message: expect.any(String), extensions: { code: 'RATE_LIMITED' } }] });
    expect(spender.charged()).toBe(12);
    const after = reads.reads;
    expect(await eventually(() => reads.reads >= after + 2)).toBe(true);
    expect(((await take(paying))?.data as { n: number }).n).toBeGreaterThan(after);
  });

  it('send each subscriber events whose versions only grow when the lease moves to the other replica', async () => {
    const [one, two] = [await replica(), await replica()];
    const reads = counting(1);
    const first = one.subscribe(key, reads.run, () => undefined);
    expect(await take(first)).toMatchObject({ data: { n: 1 } });
    const follower = two.subscribe(key, reads.run, () => undefined);
    const seen: number[] = [];
    const collect = (async () => {
      for (let result = await take(follower); result; result = await take(follower)) seen.push((result.data as { n: number }).n);
    })();
    expect(await eventually(() => seen.length >= 3)).toBe(true);
    // The reader goes; the follower takes the lease and reads on, its events after the ones it heard.
    one.close();
    const handedOver = seen.length;
    expect(await eventually(() => seen.length >= handedOver + 3)).toBe(true);
    await follower.return();
    await collect;
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(new Set(seen).size).toBe(seen.length);
  });
});
