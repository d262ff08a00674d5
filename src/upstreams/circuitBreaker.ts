export type CircuitStateName = 'closed' | 'half-open' | 'open';

/** What one call says about the upstream's health. */
export type BreakerOutcome = 'success' | 'failure' | 'ignored';

export interface BreakerOptions {
  /** The circuit opens when at least this share of the calls in the window failed (0 < ratio < 1). Default 0.5. */
  failureRatio: number;
  /** The window the ratio is measured over, in ms (kept as ten slices). Default 10 000. */
  windowMs: number;
  /** Calls the window must hold before the ratio counts, so a quiet spell never opens on a few failures. Default 50. */
  minimumCalls: number;
  /** How long an open circuit fails fast before it lets probes through. Default 10 000. */
  halfOpenAfterMs: number;
  /** Calls let through while half-open; the others still fail fast. Default 10. */
  halfOpenProbes: number;
  /** Also open after this many failures in a row; 0 (the default) turns this rule off. */
  consecutiveFailures: number;
}

/** Thrown instead of calling the upstream while the circuit is open, or half-open with every probe slot taken. */
export class CircuitOpenError extends Error {
  constructor() {
    super('the circuit is open');
    this.name = 'CircuitOpenError';
  }
}

/**
 * A failure ratio over a time window with a minimum of calls, and bounded half-open probes (docs/operations.md). Not
 * cockatiel's: there one half-open probe decides, and its SamplingBreaker asks for a minimum rate, not a count.
 */
export class SamplingCircuitBreaker {
  private current: CircuitStateName = 'closed';
  /** Bumped on every state change: a call counts only in the state it was admitted in. */
  private generation = 0;
  private readonly window: SlidingWindow;
  private consecutive = 0;
  private openedAt = 0;
  private probesAdmitted = 0;
  private probeSuccesses = 0;
  private probeFailures = 0;

  constructor(
    private readonly options: BreakerOptions,
    private readonly classify: (err: unknown) => BreakerOutcome,
    private readonly onStateChange?: (state: CircuitStateName) => void,
    private readonly now: () => number = Date.now,
  ) {
    this.window = new SlidingWindow(options.windowMs, now);
  }

  get state(): CircuitStateName {
    return this.current;
  }

  async execute<T>(fn: () => Promise<T>): Promise<T> {
    const generation = this.admit();
    let value: T;
    try {
      value = await fn();
    } catch (err) {
      this.settle(generation, this.classify(err));
      throw err;
    }
    this.settle(generation, 'success');
    return value;
  }

  /** The generation the call is admitted in, never an open one. */
  private admit(): number {
    if (this.current === 'open') {
      if (this.now() - this.openedAt < this.options.halfOpenAfterMs) throw new CircuitOpenError();
      this.transition('half-open');
    }
    if (this.current === 'half-open') {
      if (this.probesAdmitted >= this.options.halfOpenProbes) throw new CircuitOpenError();
      this.probesAdmitted += 1;
    }
    return this.generation;
  }

  private settle(generation: number, outcome: BreakerOutcome): void {
    if (generation !== this.generation) return;
    if (this.current === 'half-open') this.settleProbe(outcome);
    else this.settleClosed(outcome);
  }

  /** An ignored call says nothing about the upstream: not counted at all. */
  private settleClosed(outcome: BreakerOutcome): void {
    if (outcome === 'ignored') return;
    this.window.add(1, outcome === 'failure' ? 1 : 0);
    if (outcome === 'success') {
      this.consecutive = 0;
      return;
    }
    this.consecutive += 1;
    const { consecutiveFailures, minimumCalls, failureRatio } = this.options;
    const [calls, failures] = this.window.totals();
    const byRatio = calls >= minimumCalls && failures / calls >= failureRatio;
    const byStreak = consecutiveFailures > 0 && this.consecutive >= consecutiveFailures;
    if (byRatio || byStreak) this.transition('open');
  }

  /** An ignored probe gives its slot back. */
  private settleProbe(outcome: BreakerOutcome): void {
    if (outcome === 'ignored') {
      this.probesAdmitted -= 1;
      return;
    }
    if (outcome === 'success') this.probeSuccesses += 1;
    else this.probeFailures += 1;
    const { halfOpenProbes, failureRatio } = this.options;
    // The fewest failures among all the probes that reach the ratio; decided as soon as the answer is certain.
    const failuresToReopen = Math.max(1, Math.ceil(failureRatio * halfOpenProbes));
    if (this.probeFailures >= failuresToReopen) this.transition('open');
    else if (this.probeSuccesses > halfOpenProbes - failuresToReopen) this.transition('closed');
  }

  private transition(state: CircuitStateName): void {
    this.current = state;
    this.generation += 1;
    this.window.reset();
    this.consecutive = 0;
    this.probesAdmitted = this.probeSuccesses = this.probeFailures = 0;
    if (state === 'open') this.openedAt = this.now();
    this.onStateChange?.(state);
  }
}

/** The window slides by a tenth of its length, so it counts the last 90–100 % of `windowMs`. */
const SLICES = 10;

/** Two counts (calls and failures, requests and retries) over the last `windowMs`, in constant memory. */
export class SlidingWindow {
  private readonly sliceMs: number;
  /** `epoch`: which slice of time (floor(now / sliceMs)) the counts belong to. */
  private readonly slices = Array.from({ length: SLICES }, () => ({ epoch: -1, counts: [0, 0] }));

  constructor(
    windowMs: number,
    private readonly now: () => number,
  ) {
    this.sliceMs = Math.max(1, windowMs / SLICES);
  }

  add(first: number, second: number): void {
    const epoch = Math.floor(this.now() / this.sliceMs);
    const slice = this.slices[epoch % SLICES];
    if (slice.epoch !== epoch) {
      slice.epoch = epoch;
      slice.counts = [0, 0];
    }
    slice.counts[0] += first;
    slice.counts[1] += second;
  }

  totals(): [number, number] {
    const current = Math.floor(this.now() / this.sliceMs);
    const totals: [number, number] = [0, 0];
    for (const { epoch, counts } of this.slices) {
      if (epoch <= current - SLICES) continue;
      totals[0] += counts[0];
      totals[1] += counts[1];
    }
    return totals;
  }

  reset(): void {
    for (const slice of this.slices) slice.epoch = -1;
  }
}
