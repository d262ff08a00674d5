import { setTimeout as sleep } from 'node:timers/promises';
import { BulkheadRejectedError, bulkhead, type BulkheadPolicy } from 'cockatiel';
import { UpstreamError, type ServiceName } from '../errors/UpstreamError';
import { CircuitOpenError, SamplingCircuitBreaker, SlidingWindow, type BreakerOptions, type BreakerOutcome, type CircuitStateName } from './circuitBreaker';
import type { UpstreamEvents } from './events';
import type { CallSignal } from './callSignal';
import { deadlineError } from './transport';

export type { BreakerOptions, CircuitStateName } from './circuitBreaker';

export interface RetryOptions {
  /** Retries after the first attempt, for idempotent GETs only. Default 2. */
  maxRetries: number;
  /** First backoff ceiling; each retry doubles it, and the wait is drawn in [0, ceiling) (full jitter). */
  baseDelayMs: number;
  /** Ceiling of any single backoff. */
  maxDelayMs: number;
  /** A `Retry-After` longer than this is not waited for: the call fails at once instead. */
  maxRetryAfterMs: number;
  /** Retries may add at most this share of load (0.1 = 10 %), over a 10 s window. */
  budgetRatio: number;
  /** Retries always allowed per second, so a quiet gateway can still retry. */
  budgetMinPerSecond: number;
}

export interface BulkheadOptions {
  /** Calls in flight to this upstream at once. */
  maxConcurrent: number;
  /** Calls waiting for a slot; beyond it, calls are shed at once. */
  maxQueued: number;
}

/** The policies of one upstream; told of circuit changes (the log line, the metric) and of each retry. */
export interface ResilienceOptions extends Pick<UpstreamEvents, 'onCircuitStateChange' | 'onRetry'> {
  service: ServiceName;
  retry: RetryOptions;
  breaker: BreakerOptions;
  bulkhead: BulkheadOptions;
  random?: () => number;
  /** The clock of the breaker (its window, its open spell) and of the retry budget, in ms. Default Date.now. */
  now?: () => number;
}

/** Statuses that say "try again later" rather than "your request is wrong". */
const RETRYABLE_STATUSES = new Set([429, 502, 503, 504]);

/** Retry (GETs only, within a budget and the deadline) → breaker → bulkhead: each attempt passes all three. */
export class UpstreamResilience {
  private readonly breaker: SamplingCircuitBreaker;
  private readonly bulkhead: BulkheadPolicy;
  private readonly budget: RetryBudget;

  constructor(private readonly options: ResilienceOptions) {
    const { service } = options;
    const now = options.now ?? Date.now;
    this.breaker = new SamplingCircuitBreaker(options.breaker, breakerOutcome, (state) => options.onCircuitStateChange?.(service, state), now);
    this.bulkhead = bulkhead(options.bulkhead.maxConcurrent, options.bulkhead.maxQueued);
    this.budget = new RetryBudget(options.retry.budgetRatio, options.retry.budgetMinPerSecond, now);
  }

  get circuitState(): CircuitStateName {
    return this.breaker.state;
  }

  /**
   * Runs `attempt` under the policies; `deadline` is the request's (epoch ms), `signal` aborts at it. The retries are
   * a loop rather than a cockatiel retry policy: one had to be built per call (its predicate and backoff depend on the
   * call's deadline and count), and building it cost more than the call's own transport.
   */
  async execute<T>(idempotent: boolean, attempt: () => Promise<T>, deadline: number, signal?: CallSignal): Promise<T> {
    const { service, retry: options } = this.options;
    try {
      if (!idempotent || options.maxRetries === 0) return await this.once(attempt, signal);
      this.budget.recordRequest();
      for (let retried = 0; ; ) {
        try {
          return await this.once(attempt, signal);
        } catch (err) {
          // Asked after the last attempt too: a retry that will not happen must not take from the budget.
          if (retried >= options.maxRetries || signal?.aborted || !(err instanceof Error) || !this.shouldRetry(err, deadline)) throw err;
          retried += 1;
          const delay = this.backoffMs(retried, err, deadline);
          if (err instanceof UpstreamError) this.options.onRetry?.(service, retried, delay, err);
          await sleep(delay);
        }
      }
    } catch (err) {
      if (err instanceof CircuitOpenError) {
        throw new UpstreamError(service, 'unavailable', { detail: 'its circuit is open after repeated failures; calls fail fast until it recovers' });
      }
      if (err instanceof BulkheadRejectedError) {
        throw new UpstreamError(service, 'unavailable', { detail: 'the gateway is at its limit of concurrent calls to it; try again shortly' });
      }
      throw err;
    }
  }

  /** One attempt through the breaker and the bulkhead. */
  private once<T>(attempt: () => Promise<T>, signal: CallSignal | undefined): Promise<T> {
    // A call queued for a slot whose deadline passed meanwhile fails at its turn, unrecorded and never sent.
    return this.breaker.execute(() => this.bulkhead.execute(() => (signal?.aborted ? Promise.reject(deadlineError(this.options.service)) : attempt())));
  }

  /** Exponential backoff with full jitter before retry `retry` (1-based); an upstream's `Retry-After` wins; never past the deadline. */
  private backoffMs(retry: number, error: Error, deadline: number): number {
    const { retry: { maxDelayMs, baseDelayMs }, random = Math.random } = this.options;
    const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** Math.max(0, retry - 1));
    const wanted = error instanceof UpstreamError && error.retryAfterMs !== undefined ? error.retryAfterMs : random() * ceiling;
    return Math.max(0, Math.min(wanted, deadline - Date.now()));
  }

  private shouldRetry(err: Error, deadline: number): boolean {
    if (!(err instanceof UpstreamError) || err.deadlineExceeded) return false;
    const transient = noAnswer(err) || (err.failure === 'status' && RETRYABLE_STATUSES.has(err.status ?? 0));
    if (!transient) return false;
    if (err.retryAfterMs !== undefined && (err.retryAfterMs > this.options.retry.maxRetryAfterMs || Date.now() + err.retryAfterMs >= deadline)) return false;
    if (Date.now() >= deadline) return false;
    return this.budget.tryRetry();
  }
}

/** A failure is no answer or a 5xx; any other answer shows the service up; the gateway's own doing is ignored. */
function breakerOutcome(err: unknown): BreakerOutcome {
  if (!(err instanceof UpstreamError) || err.deadlineExceeded) return 'ignored';
  const failed = noAnswer(err) || (err.failure === 'status' && (err.status ?? 0) >= 500);
  return failed ? 'failure' : 'success';
}

/** No answer in time, or no connection (an open circuit or shed load is not the service's doing). */
function noAnswer(err: UpstreamError): boolean {
  return err.failure === 'timeout' || (err.failure === 'unavailable' && err.connectionFailed);
}

/** Finagle's and gRPC's retry budget: at most `ratio` of the last 10 s of requests, plus `minPerSecond`. */
export class RetryBudget {
  private readonly window: SlidingWindow;

  constructor(
    private readonly ratio: number,
    private readonly minPerSecond: number,
    now: () => number = Date.now,
  ) {
    this.window = new SlidingWindow(10_000, now);
  }

  recordRequest(): void {
    this.window.add(1, 0);
  }

  /** Takes one retry from the budget if there is one left. */
  tryRetry(): boolean {
    const [requests, retries] = this.window.totals();
    if (retries + 1 > this.minPerSecond * 10 + this.ratio * requests) return false;
    this.window.add(0, 1);
    return true;
  }
}
