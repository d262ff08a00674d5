/**
 * A retry budget (as in Finagle and gRPC): retries may add at most `ratio` of the requests seen in the last
 * `windowSeconds`, plus `minPerSecond` so a quiet service can still retry. During an outage it caps the extra
 * load retries put on the upstream at about `ratio`.
 */
export class RetryBudget {
  private readonly requests: number[];
  private readonly retries: number[];
  private currentSecond = 0;

  constructor(
    private readonly ratio: number,
    private readonly minPerSecond: number,
    private readonly windowSeconds = 10,
    private readonly now: () => number = Date.now,
  ) {
    this.requests = new Array<number>(windowSeconds).fill(0);
    this.retries = new Array<number>(windowSeconds).fill(0);
  }

  recordRequest(): void {
    this.requests[this.slot()]++;
  }

  /** Takes one retry from the budget if there is one left. */
  tryRetry(): boolean {
    const slot = this.slot();
    const allowed = this.minPerSecond * this.windowSeconds + this.ratio * sum(this.requests);
    if (sum(this.retries) + 1 > allowed) return false;
    this.retries[slot]++;
    return true;
  }

  /** The bucket of the current second, clearing buckets that fell out of the window. */
  private slot(): number {
    const second = Math.floor(this.now() / 1000);
    const elapsed = Math.min(second - this.currentSecond, this.windowSeconds);
    for (let i = 1; i <= elapsed; i++) {
      const s = (this.currentSecond + i) % this.windowSeconds;
      this.requests[s] = 0;
      this.retries[s] = 0;
    }
    this.currentSecond = second;
    return second % this.windowSeconds;
  }
}

function sum(values: readonly number[]): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}
