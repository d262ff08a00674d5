/** Slices of a window: the window slides by a tenth of its length, so it counts the last 90–100 % of `windowMs`. */
const SLICES = 10;

interface Slice {
  /** Which slice of time (floor(now / sliceMs)) these counts belong to. */
  epoch: number;
  calls: number;
  failures: number;
}

/** Calls and failures over the last `windowMs`, in constant memory whatever the traffic. */
export class SlidingWindow {
  private readonly sliceMs: number;
  private readonly slices: Slice[];

  constructor(
    windowMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.sliceMs = Math.max(1, windowMs / SLICES);
    this.slices = Array.from({ length: SLICES }, () => ({ epoch: -1, calls: 0, failures: 0 }));
  }

  record(failed: boolean): void {
    const epoch = Math.floor(this.now() / this.sliceMs);
    const slice = this.slices[epoch % SLICES];
    if (slice.epoch !== epoch) {
      slice.epoch = epoch;
      slice.calls = slice.failures = 0;
    }
    slice.calls += 1;
    if (failed) slice.failures += 1;
  }

  totals(): { calls: number; failures: number } {
    const current = Math.floor(this.now() / this.sliceMs);
    let calls = 0;
    let failures = 0;
    for (const slice of this.slices) {
      if (slice.epoch <= current - SLICES) continue;
      calls += slice.calls;
      failures += slice.failures;
    }
    return { calls, failures };
  }

  reset(): void {
    for (const slice of this.slices) {
      slice.epoch = -1;
      slice.calls = slice.failures = 0;
    }
  }
}
