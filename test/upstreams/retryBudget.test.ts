import { RetryBudget } from '../../src/upstreams/resilience';

/** A clock the test moves by hand, starting on a whole second. */
function clock(start = 1_700_000_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

function record(budget: RetryBudget, requests: number): void {
  for (let i = 0; i < requests; i++) budget.recordRequest();
}

/** How many retries the budget grants before its first refusal (capped, so a broken budget still ends). */
function drain(budget: RetryBudget, cap = 1000): number {
  let granted = 0;
  while (granted < cap && budget.tryRetry()) granted++;
  return granted;
}

describe('RetryBudget', () => {
  it('allows ratio × requests retries in the window and refuses beyond', () => {
    const time = clock();
    const budget = new RetryBudget(0.1, 0, time.now);
    record(budget, 100);
    expect(drain(budget)).toBe(10);
    expect(budget.tryRetry()).toBe(false);
  });

  it('adds minPerSecond × window seconds to the ratio', () => {
    const time = clock();
    const budget = new RetryBudget(0.1, 1, time.now);
    record(budget, 100);
    expect(drain(budget)).toBe(10 + 1 * 10);
  });

  it('allows the minimum to a quiet service that saw no requests', () => {
    const budget = new RetryBudget(0.1, 1, clock().now);
    expect(drain(budget)).toBe(10);
  });

  it('refuses every retry with no requests and no minimum', () => {
    const budget = new RetryBudget(0.1, 0, clock().now);
    record(budget, 9);
    expect(budget.tryRetry()).toBe(false);
  });

  it('counts requests and retries across the seconds of the window', () => {
    const time = clock();
    const budget = new RetryBudget(0.1, 0, time.now);
    record(budget, 50);
    time.advance(4_000);
    record(budget, 50);
    expect(drain(budget)).toBe(10);
    time.advance(5_000);
    expect(budget.tryRetry()).toBe(false);
  });

  it('stays spent until the window has slid past the spent retries', () => {
    const time = clock();
    const budget = new RetryBudget(0.1, 1, time.now);
    record(budget, 100);
    expect(drain(budget)).toBe(20);

    time.advance(9_999);
    expect(budget.tryRetry()).toBe(false);

    time.advance(1);
    // Old requests and old retries both left the window: the minimum is back, the ratio share is not.
    expect(drain(budget)).toBe(10);
  });

  it('drops only the seconds that left the window', () => {
    const time = clock();
    const budget = new RetryBudget(0.1, 0, time.now);
    record(budget, 100);
    expect(drain(budget)).toBe(10);
    time.advance(5_000);
    record(budget, 100);
    expect(drain(budget)).toBe(10);

    time.advance(5_000);
    // The first 100 requests and 10 retries are gone; the second 100 and their 10 retries remain.
    expect(budget.tryRetry()).toBe(false);
    record(budget, 10);
    expect(drain(budget)).toBe(1);
  });

  it('recovers fully after a long quiet spell', () => {
    const time = clock();
    const budget = new RetryBudget(0.1, 0, time.now);
    record(budget, 100);
    drain(budget);
    time.advance(60 * 60_000);
    expect(budget.tryRetry()).toBe(false);
    record(budget, 100);
    expect(drain(budget)).toBe(10);
  });
});
