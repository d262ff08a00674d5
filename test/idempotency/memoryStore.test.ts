import { MemoryIdempotencyStore, type StoredResponse } from '../../src/idempotency/store';

const response = (body = '{"data":{}}', fingerprint = 'fp'): StoredResponse => ({ fingerprint, status: 200, contentType: 'application/json', body });

describe('MemoryIdempotencyStore', () => {
  let now = 0;
  const store = (maxBytes = 1 << 20, onEvict?: () => void) => new MemoryIdempotencyStore({ maxBytes, now: () => now, onEvict });
  beforeEach(() => (now = 1_000_000));

  it('takes a free key once: a second take sees it running with its fingerprint', async () => {
    const s = store();
    const first = await s.take('k', 'fp-1', 5000);
    expect(first.state).toBe('taken');
    expect(await s.take('k', 'fp-2', 5000)).toEqual({ state: 'running', fingerprint: 'fp-1' });
  });

  it('replaces the lease with the response, which later takes get until the TTL passes', async () => {
    const s = store();
    const taken = await s.take('k', 'fp', 5000);
    if (taken.state !== 'taken') throw new Error('expected the key to be free');
    await s.complete('k', taken.lease, response(), 60);
    now += 59_000;
    expect(await s.take('k', 'fp', 5000)).toEqual({ state: 'done', response: response() });
    now += 1_001; // past the TTL
    expect((await s.take('k', 'fp', 5000)).state).toBe('taken');
  });

  it('frees a released key, and a lease that expired', async () => {
    const s = store();
    const taken = await s.take('k', 'fp', 5000);
    if (taken.state !== 'taken') throw new Error('expected the key to be free');
    await s.release('k', taken.lease);
    expect((await s.take('k', 'fp', 5000)).state).toBe('taken');
    now += 5000;
    expect((await s.take('k', 'fp', 5000)).state).toBe('taken');
  });

  it('ignores a complete or release with a lease it no longer holds', async () => {
    const s = store();
    const old = await s.take('k', 'fp', 5000);
    if (old.state !== 'taken') throw new Error('expected the key to be free');
    now += 5000; // the old lease expired; another request takes the key
    const current = await s.take('k', 'fp', 5000);
    await s.complete('k', old.lease, response('stale'), 60);
    await s.release('k', old.lease);
    expect(current.state).toBe('taken');
    expect((await s.take('k', 'fp', 5000)).state).toBe('running');
  });

  it('drops the oldest stored responses first when full, never a running lease, and says so', async () => {
    let evicted = 0;
    const s = store(2000, () => (evicted += 1));
    const lease = await s.take('running', 'fp', 60_000);
    expect(lease.state).toBe('taken');
    for (const key of ['a', 'b', 'c']) {
      const taken = await s.take(key, 'fp', 5000);
      if (taken.state !== 'taken') throw new Error('expected the key to be free');
      await s.complete(key, taken.lease, response('x'.repeat(500)), 60);
    }
    expect(evicted).toBe(1);
    expect((await s.take('a', 'fp', 5000)).state).toBe('taken');
    expect((await s.take('c', 'fp', 5000)).state).toBe('done');
    expect((await s.take('running', 'fp', 5000)).state).toBe('running');
  });

  it('does not count an expired response dropped to make room as evicted', async () => {
    let evicted = 0;
    const s = store(2000, () => (evicted += 1));
    for (const key of ['a', 'b']) {
      const taken = await s.take(key, 'fp', 5000);
      if (taken.state !== 'taken') throw new Error('expected the key to be free');
      await s.complete(key, taken.lease, response('x'.repeat(500)), 60);
    }
    now += 61_000;
    const taken = await s.take('c', 'fp', 5000);
    if (taken.state !== 'taken') throw new Error('expected the key to be free');
    await s.complete('c', taken.lease, response('x'.repeat(500)), 60);
    expect(evicted).toBe(0);
    expect((await s.take('c', 'fp', 5000)).state).toBe('done');
  });

  it('holds a renewed lease past its first expiry, and says when the lease it renews is gone', async () => {
    const s = store();
    const taken = await s.take('k', 'fp', 5000);
    if (taken.state !== 'taken') throw new Error('expected the key to be free');
    now += 4000;
    expect(await s.renew('k', taken.lease, 5000)).toBe(true);
    now += 4000;
    expect((await s.take('k', 'fp', 5000)).state).toBe('running');
    now += 5000;
    expect(await s.renew('k', taken.lease, 5000)).toBe(false);
  });

  it('keeps a key sent upstream from being freed when its lease lapses: unknown until its TTL, then free', async () => {
    const s = store();
    const taken = await s.take('k', 'fp', 5000);
    if (taken.state !== 'taken') throw new Error('expected the key to be free');
    expect(await s.markSent('k', taken.lease, 60)).toBe('recorded');
    now += 5000;
    expect(await s.take('k', 'other', 5000)).toEqual({ state: 'unknown', fingerprint: 'fp' });
    now += 60_000;
    expect((await s.take('k', 'fp', 5000)).state).toBe('taken');
  });

  it('keeps at most 100,000 sent markers, the oldest dropped first', async () => {
    const s = store();
    const markers = 100_001;
    for (let i = 0; i < markers; i += 1) {
      const taken = await s.take(`k${i}`, 'fp', 5000);
      if (taken.state !== 'taken') throw new Error('expected the key to be free');
      await s.markSent(`k${i}`, taken.lease, 60);
    }
    now += 5000; // every lease lapsed: only the markers say a key may have reached the upstream
    expect((await s.take('k0', 'fp', 5000)).state).toBe('taken');
    expect(await s.take('k1', 'other', 5000)).toEqual({ state: 'unknown', fingerprint: 'fp' });
    expect(await s.take(`k${markers - 1}`, 'other', 5000)).toEqual({ state: 'unknown', fingerprint: 'fp' });
  });

  it('says a completion or a mark found its lease gone once another request holds the key', async () => {
    const s = store();
    const old = await s.take('k', 'fp', 5000);
    if (old.state !== 'taken') throw new Error('expected the key to be free');
    now += 5000;
    expect((await s.take('k', 'fp', 5000)).state).toBe('taken');
    expect(await s.markSent('k', old.lease, 60)).toBe('lease_lost');
    expect(await s.complete('k', old.lease, response(), 60)).toBe('lease_lost');
  });

  it('stores the answer of a request whose lease lapsed while nobody took its key, and frees a sent mark on release', async () => {
    const s = store();
    const slow = await s.take('slow', 'fp', 5000);
    if (slow.state !== 'taken') throw new Error('expected the key to be free');
    await s.markSent('slow', slow.lease, 60);
    now += 5000;
    expect(await s.complete('slow', slow.lease, response(), 60)).toBe('stored');
    expect((await s.take('slow', 'fp', 5000)).state).toBe('done');
    const refused = await s.take('refused', 'fp', 5000);
    if (refused.state !== 'taken') throw new Error('expected the key to be free');
    await s.markSent('refused', refused.lease, 60);
    await s.release('refused', refused.lease);
    expect((await s.take('refused', 'fp', 5000)).state).toBe('taken');
  });
});
