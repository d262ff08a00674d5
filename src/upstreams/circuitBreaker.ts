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

/** One admitted call: the state period it belongs to, so a late answer never counts toward a later period. */
interface Ticket {
  generation: number;
  probe: boolean;
}

/**
 * A circuit breaker that measures health rather than luck (resilience4j's model, with a time-based window):
 * - closed: every counted call goes into a sliding window of `windowMs`; the circuit opens when the window holds at
 *   least `minimumCalls` calls and at least `failureRatio` of them failed (or, when enabled, after
 *   `consecutiveFailures` in a row);
 * - open: calls fail fast with CircuitOpenError for `halfOpenAfterMs`;
 * - half-open: up to `halfOpenProbes` calls go through; the circuit closes as soon as so many succeeded that the
 *   probes' failure ratio can no longer reach `failureRatio`, and reopens as soon as it has reached it.
 * Which errors are failures is the caller's `classify`: an "ignored" call (the caller's own deadline, a shed call)
 * says nothing about the upstream and is not counted at all; while half-open it gives its probe slot back.
 * Not cockatiel's: its half-open state lets exactly one probe decide (at 10 % faults it fails one time in ten), and its
 * SamplingBreaker asks for a minimum rate rather than a minimum number of calls.
 */
export class SamplingCircuitBreaker {
  private current: CircuitStateName = 'closed';
  /** Bumped on every state change. */
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
    const ticket = this.admit();
    let value: T;
    try {
      value = await fn();
    } catch (err) {
      this.settle(ticket, this.classify(err));
      throw err;
    }
    this.settle(ticket, 'success');
    return value;
  }

  private admit(): Ticket {
    if (this.current === 'open') {
      if (this.now() - this.openedAt < this.options.halfOpenAfterMs) throw new CircuitOpenError();
      this.transition('half-open');
    }
    if (this.current === 'half-open') {
      if (this.probesAdmitted >= this.options.halfOpenProbes) throw new CircuitOpenError();
      this.probesAdmitted += 1;
      return { generation: this.generation, probe: true };
    }
    return { generation: this.generation, probe: false };
  }

  private settle(ticket: Ticket, outcome: BreakerOutcome): void {
    if (ticket.generation !== this.generation) return;
    if (ticket.probe) this.settleProbe(outcome);
    else this.settleClosed(outcome);
  }

  private settleClosed(outcome: BreakerOutcome): void {
    if (outcome === 'ignored') return;
    this.window.record(outcome === 'failure');
    if (outcome === 'success') {
      this.consecutive = 0;
      return;
    }
    this.consecutive += 1;
    const { consecutiveFailures, minimumCalls, failureRatio } = this.options;
    const { calls, failures } = this.window.totals();
    const byRatio = calls >= minimumCalls && failures / calls >= failureRatio;
    const byStreak = consecutiveFailures > 0 && this.consecutive >= consecutiveFailures;
    if (byRatio || byStreak) this.transition('open');
  }

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

/** Slices of a window: the window slides by a tenth of its length, so it counts the last 90–100 % of `windowMs`. */
const SLICES = 10;

interface Slice {
  /** Which slice of time (floor(now / sliceMs)) these counts belong to. */
  epoch: number;
  calls: number;
  failures: number;
}

/** Calls and failures over the last `windowMs`, in constant memory whatever the traffic. */
class SlidingWindow {
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
