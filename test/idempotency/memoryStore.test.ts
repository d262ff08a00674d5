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
});
