import { randomUUID } from 'node:crypto';
import { checkById } from '../../src/loaders/checkById';
import { Check, type CheckRecord } from '../../src/upstreams/pos/dto';
import { UpstreamRecord } from '../../src/upstreams/record';
import { checkRecord } from '../support/fixtures';
import { recordOrigin } from '../support/resolvers';

/** A fake POS that counts calls and in-flight calls, and answers each after a macrotask so calls can overlap. */
function countingPos(failing: ReadonlySet<string> = new Set()) {
  const calls: string[] = [];
  const events: Array<'start' | 'finish'> = [];
  let inFlight = 0;
  let maxInFlight = 0;
  return {
    calls,
    events,
    maxInFlight: () => maxInFlight,
    async getCheck(id: string): Promise<CheckRecord> {
      calls.push(id);
      events.push('start');
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((resolve) => setImmediate(resolve));
      inFlight -= 1;
      events.push('finish');
      if (failing.has(id)) throw new Error(`check ${id} failed`);
      return UpstreamRecord.of(Check, checkRecord({ id }), recordOrigin('pos', '/checks/:id'));
    },
  };
}

const distinctIds = (n: number) => Array.from({ length: n }, () => randomUUID());
/** 50 keys over the given ids: every id at least once, some several times, in a shuffled-looking order. */
const fiftyLoadsOver = (ids: string[]) => Array.from({ length: 50 }, (_v, i) => ids[(i * 7) % ids.length]);

describe('checkById', () => {
  it('tells onBatch the size of each batch, distinct keys only', async () => {
    const sizes: number[] = [];
    const loader = checkById(countingPos(), 32, (size) => sizes.push(size));
    await Promise.all(fiftyLoadsOver(distinctIds(30)).map((id) => loader.load(id)));
    await loader.load(randomUUID());
    expect(sizes).toEqual([30, 1]);
  });

  it('calls POS once per distinct id, all concurrently when the limit allows', async () => {
    const pos = countingPos();
    const ids = distinctIds(30);
    const keys = fiftyLoadsOver(ids);
    expect(new Set(keys).size).toBe(30);
    const loader = checkById(pos, 32);
    const checks = await Promise.all(keys.map((id) => loader.load(id)));
    expect(pos.calls).toHaveLength(30);
    expect(new Set(pos.calls)).toEqual(new Set(ids));
    expect(pos.maxInFlight()).toBe(30);
    expect(pos.events.slice(0, 30).every((e) => e === 'start')).toBe(true);
    expect(checks.map((c) => c.read('id'))).toEqual(keys);
  });

  it('keeps at most `concurrency` calls in flight', async () => {
    const pos = countingPos();
    const loader = checkById(pos, 5);
    await Promise.all(fiftyLoadsOver(distinctIds(30)).map((id) => loader.load(id)));
    expect(pos.calls).toHaveLength(30);
    expect(pos.maxInFlight()).toBe(5);
  });

  it('puts the Error of a failing id in its slot while the others resolve', async () => {
    const ids = distinctIds(4);
    const pos = countingPos(new Set([ids[2]]));
    const results = await checkById(pos, 32).loadMany(ids);
    expect((results[0] as CheckRecord).read('id')).toBe(ids[0]);
    expect((results[1] as CheckRecord).read('id')).toBe(ids[1]);
    expect(results[2]).toBeInstanceOf(Error);
    expect((results[2] as Error).message).toBe(`check ${ids[2]} failed`);
    expect((results[3] as CheckRecord).read('id')).toBe(ids[3]);
  });

  it('rejects load() of a failing id only', async () => {
    const [good, bad] = distinctIds(2);
    const loader = checkById(countingPos(new Set([bad])), 32);
    const [ok, failed] = await Promise.allSettled([loader.load(good), loader.load(bad)]);
    expect(ok.status === 'fulfilled' && ok.value.read('id')).toBe(good);
    expect(failed).toMatchObject({ status: 'rejected', reason: expect.any(Error) });
  });

  it('serves a repeated id from its cache within one loader', async () => {
    const pos = countingPos();
    const loader = checkById(pos, 32);
    const [id] = distinctIds(1);
    await loader.load(id);
    await loader.load(id);
    expect(pos.calls).toEqual([id]);
  });
});
