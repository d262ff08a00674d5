import { Registry } from 'prom-client';
import { createLogger } from '../../src/logger';
import { LivePolls, liveMetrics, type redisCoordinator } from '../../src/live/polls';

type Coordinator = ReturnType<typeof redisCoordinator>;
type Joined = Awaited<ReturnType<Coordinator['join']>>;
const OLD = { result: { data: { v: 'old' } }, hash: 'old', final: false };

/** A coordinator whose join answers only when the test says, as Redis does when it is slow. */
function lateJoin(holds: boolean) {
  let answer: (joined: Joined) => void = () => undefined;
  const coordinator: Coordinator = {
    followerTickMs: 5,
    join: () => new Promise<Joined>((resolve) => (answer = resolve)),
    hold: () => Promise.resolve(holds),
    release: () => Promise.resolve(),
    share: () => Promise.resolve(),
  };
  const polls = new LivePolls({ intervalMs: 60_000, logger: createLogger({ level: 'silent' }), metrics: liveMetrics(new Registry()), coordinator });
  const subscriber = polls.subscribe('key', () => Promise.resolve({ result: { data: { v: 'new' } }, upstreamCalls: 1 }), () => undefined);
  return { polls, subscriber, join: (stored: typeof OLD) => answer({ stored, leave: () => Promise.resolve() }) };
}

const settled = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('a live poll whose Redis join answers late', () => {
  it('sends the kept event as the first event of a follower', async () => {
    const { polls, subscriber, join } = lateJoin(false);
    await settled();
    expect(subscriber.events).toBe(0);
    join(OLD);
    expect((await subscriber.next()).value).toEqual({ data: { v: 'old' } });
    polls.close();
  });

  it('never sends the kept event after the newer one this replica read', async () => {
    const { polls, subscriber, join } = lateJoin(true);
    expect((await subscriber.next()).value).toEqual({ data: { v: 'new' } });
    join(OLD);
    await settled();
    expect(subscriber.events).toBe(1);
    polls.close();
  });
});
