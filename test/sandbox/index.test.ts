import { SAMPLE, startSandbox } from '../../src/sandbox';
import { call, posToken, reservationToken, SAMPLE_NOW } from './sandboxClient';

describe('startSandbox', () => {
  it('records every request with its headers and body, and resets in place', async () => {
    const sandbox = await startSandbox({ now: SAMPLE_NOW });
    try {
      const held = sandbox.requests;
      await call(sandbox, 'pos', 'GET', '/employees?per_page=5', { headers: { ...posToken('bistroNord'), 'X-Request-Id': 'abc' } });
      await call(sandbox, 'reservation', 'PATCH', '/v1/reservation-payments', { headers: reservationToken('laTerrazza'), body: { id: SAMPLE.unknownId } });
      expect(held).toHaveLength(2);
      expect(held[0]).toMatchObject({ service: 'pos', method: 'GET', path: '/employees?per_page=5', body: undefined });
      expect(held[0].headers).toMatchObject({ 'pos-access-token': 'sandbox-pos-token-bistro-nord', 'x-request-id': 'abc' });
      expect(held[1]).toMatchObject({ service: 'reservation', method: 'PATCH', body: { id: SAMPLE.unknownId } });
      sandbox.resetRequests();
      expect(held).toHaveLength(0);
      expect(sandbox.requests).toBe(held);
    } finally {
      await sandbox.close();
    }
  });

  it('records nothing when recordRequests is false', async () => {
    const sandbox = await startSandbox({ now: SAMPLE_NOW, recordRequests: false });
    try {
      await call(sandbox, 'pos', 'GET', '/employees', { headers: posToken('laTerrazza') });
      expect(sandbox.requests).toHaveLength(0);
    } finally {
      await sandbox.close();
    }
  });

  it('delays every response by delayMs', async () => {
    const sandbox = await startSandbox({ now: SAMPLE_NOW, delayMs: 150 });
    try {
      const started = Date.now();
      const answers = await Promise.all([
        call(sandbox, 'pos', 'GET', '/employees', { headers: posToken('laTerrazza') }),
        call(sandbox, 'reservation', 'GET', '/nowhere'),
      ]);
      const elapsed = Date.now() - started;
      expect(answers.map((a) => a.status)).toEqual([200, 404]);
      expect(elapsed).toBeGreaterThanOrEqual(140);
      expect(elapsed).toBeLessThan(1000); // concurrent, not one after another
    } finally {
      await sandbox.close();
    }
  });

  it('closes even while a keep-alive connection is open', async () => {
    const sandbox = await startSandbox({ now: SAMPLE_NOW });
    await call(sandbox, 'pos', 'GET', '/employees', { headers: posToken('laTerrazza') });
    await expect(sandbox.close()).resolves.toBeUndefined();
    await expect(fetch(`${sandbox.posUrl}/employees`)).rejects.toThrow();
  });

  it('keeps concurrent requests of the two venues apart', async () => {
    const sandbox = await startSandbox({ now: SAMPLE_NOW });
    try {
      const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => {
        const venue = i % 2 === 0 ? 'laTerrazza' : 'bistroNord';
        return call(sandbox, 'pos', 'GET', '/employees?per_page=100', { headers: posToken(venue) }).then((a) => [venue, a.json.meta.total_count]);
      }));
      for (const [venue, total] of answers) expect(total).toBe(venue === 'laTerrazza' ? 42 : 5);
    } finally {
      await sandbox.close();
    }
  });
});
