import { CircuitOpenError, SamplingCircuitBreaker, type BreakerOptions, type BreakerOutcome, type CircuitStateName } from '../../src/upstreams/circuitBreaker';

/** An error that carries the outcome the classifier should give it. */
class Outcome extends Error {
  constructor(readonly outcome: BreakerOutcome) {
    super(outcome);
  }
}

const classify = (err: unknown): BreakerOutcome => (err instanceof Outcome ? err.outcome : 'failure');

/** A breaker on a hand-moved clock, with every state change written down. */
function breaker(options: Partial<BreakerOptions> = {}) {
  const clock = { now: 1_000_000 };
  const states: CircuitStateName[] = [];
  const b = new SamplingCircuitBreaker(
    { failureRatio: 0.5, windowMs: 10_000, minimumCalls: 10, halfOpenAfterMs: 5000, halfOpenProbes: 4, consecutiveFailures: 0, ...options },
    classify,
    (state) => states.push(state),
    () => clock.now,
  );
  const run = (outcome: BreakerOutcome) => b.execute(() => (outcome === 'success' ? Promise.resolve('ok') : Promise.reject(new Outcome(outcome)))).catch((err: unknown) => err);
  const runAll = async (outcomes: BreakerOutcome[]) => {
    for (const o of outcomes) await run(o);
  };
  return { b, clock, states, run, runAll };
}

const times = (n: number, outcome: BreakerOutcome): BreakerOutcome[] => Array.from({ length: n }, () => outcome);

describe('SamplingCircuitBreaker', () => {
  it('stays closed below the minimum of calls, however many of them failed', async () => {
    const { b, runAll } = breaker();
    await runAll(times(9, 'failure'));
    expect(b.state).toBe('closed');
  });

  it('opens once the window holds the minimum of calls and the failure ratio is reached', async () => {
    const { b, runAll, states } = breaker();
    await runAll([...times(5, 'success'), ...times(4, 'failure')]);
    expect(b.state).toBe('closed');
    await runAll(['failure']);
    expect(b.state).toBe('open');
    expect(states).toEqual(['open']);
  });

  it('stays closed under a steady 10 % of failures, whatever their order', async () => {
    const { b, runAll } = breaker({ minimumCalls: 10 });
    // Bursts of failures in a row, as a day list's fan-out gives them: 10 % overall.
    for (let i = 0; i < 100; i++) await runAll([...times(5, 'failure'), ...times(45, 'success')]);
    expect(b.state).toBe('closed');
  });

  it('forgets calls older than the window', async () => {
    const { b, clock, runAll } = breaker();
    await runAll([...times(5, 'success'), ...times(4, 'failure')]);
    clock.now += 10_000;
    await runAll(times(9, 'failure'));
    expect(b.state).toBe('closed');
    await runAll(['failure']);
    expect(b.state).toBe('open');
  });

  it('counts neither ignored calls nor their number toward the minimum', async () => {
    const { b, runAll } = breaker();
    await runAll([...times(50, 'ignored'), ...times(9, 'failure')]);
    expect(b.state).toBe('closed');
  });

  it('opens on failures in a row only when that rule is on', async () => {
    const off = breaker({ minimumCalls: 100 });
    await off.runAll(times(20, 'failure'));
    expect(off.b.state).toBe('closed');
    const on = breaker({ minimumCalls: 100, consecutiveFailures: 3 });
    await on.runAll(['failure', 'failure', 'success', 'failure', 'failure']);
    expect(on.b.state).toBe('closed');
    await on.runAll(['failure']);
    expect(on.b.state).toBe('open');
  });

  describe('open and half-open', () => {
    async function opened(options: Partial<BreakerOptions> = {}) {
      const it = breaker(options);
      await it.runAll(times(10, 'failure'));
      expect(it.b.state).toBe('open');
      return it;
    }

    it('fails fast without calling while open', async () => {
      const { b, clock } = await opened();
      clock.now += 4999;
      const fn = jest.fn(() => Promise.resolve('ok'));
      await expect(b.execute(fn)).rejects.toBeInstanceOf(CircuitOpenError);
      expect(fn).not.toHaveBeenCalled();
    });

    it('lets exactly halfOpenProbes calls through after halfOpenAfterMs, and fails the others fast', async () => {
      const { b, clock, states } = await opened();
      clock.now += 5000;
      const releases: Array<() => void> = [];
      const pending = Array.from({ length: 6 }, () => b.execute(() => new Promise<string>((resolve) => releases.push(() => resolve('ok')))).catch((e: unknown) => e));
      expect(releases).toHaveLength(4);
      expect(b.state).toBe('half-open');
      releases.forEach((release) => release());
      const results = await Promise.all(pending);
      expect(results.filter((r) => r === 'ok')).toHaveLength(4);
      expect(results.filter((r) => r instanceof CircuitOpenError)).toHaveLength(2);
      expect(states).toEqual(['open', 'half-open', 'closed']);
    });

    it('closes as soon as the probes cannot reach the failure ratio any more', async () => {
      const { b, clock, runAll } = await opened();
      clock.now += 5000;
      // 4 probes at 0.5: 2 failures reopen, so 3 successes close.
      await runAll(['failure', 'success', 'success']);
      expect(b.state).toBe('half-open');
      await runAll(['success']);
      expect(b.state).toBe('closed');
    });

    it('reopens as soon as the probes reach the failure ratio, for another halfOpenAfterMs', async () => {
      const { b, clock, runAll, states } = await opened();
      clock.now += 5000;
      await runAll(['success', 'failure', 'failure']);
      expect(b.state).toBe('open');
      expect(states).toEqual(['open', 'half-open', 'open']);
      clock.now += 4999;
      await expect(b.execute(() => Promise.resolve('ok'))).rejects.toBeInstanceOf(CircuitOpenError);
    });

    it('gives the slot of an ignored probe to the next call', async () => {
      const { b, clock, runAll } = await opened({ halfOpenProbes: 1 });
      clock.now += 5000;
      await runAll(['ignored']);
      expect(b.state).toBe('half-open');
      await runAll(['success']);
      expect(b.state).toBe('closed');
    });

    it('does not count a call admitted before the circuit opened', async () => {
      const { b, clock, runAll } = breaker();
      let release!: () => void;
      const late = b.execute(() => new Promise<never>((_resolve, reject) => (release = () => reject(new Outcome('failure'))))).catch(() => undefined);
      await runAll(times(10, 'failure'));
      clock.now += 5000;
      await runAll(['success']);
      expect(b.state).toBe('half-open');
      release();
      await late;
      expect(b.state).toBe('half-open');
    });

    it('starts the closed window afresh after closing', async () => {
      const { b, clock, runAll } = await opened({ halfOpenProbes: 1 });
      clock.now += 5000;
      await runAll(['success']);
      expect(b.state).toBe('closed');
      await runAll(times(9, 'failure'));
      expect(b.state).toBe('closed');
    });
  });
});
