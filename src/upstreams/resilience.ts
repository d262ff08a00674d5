import {
  BulkheadRejectedError,
  TaskCancelledError,
  bulkhead,
  handleWhen,
  retry,
  type BulkheadPolicy,
  type IBackoff,
  type IBackoffFactory,
  type IRetryBackoffContext,
} from 'cockatiel';
import { UpstreamError, type ServiceName } from '../errors/UpstreamError';
import { CircuitOpenError, SamplingCircuitBreaker, type BreakerOptions, type BreakerOutcome, type CircuitStateName } from './circuitBreaker';
import type { UpstreamEvents } from './events';
import { RetryBudget } from './retryBudget';
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
}

/** Statuses that say "try again later" rather than "your request is wrong". */
const RETRYABLE_STATUSES = new Set([429, 502, 503, 504]);

/**
 * The resilience policies of one upstream, composed once per service (cockatiel's retry and bulkhead, and a breaker
 * of our own, src/upstreams/circuitBreaker.ts):
 * retry (GETs only, full-jitter backoff, Retry-After, a retry budget, within the request's deadline)
 * → circuit breaker (a failure ratio over a time window with a minimum of calls; bounded half-open probes)
 * → bulkhead (bounded concurrency with a bounded queue; overload is shed at once).
 * Every attempt passes the breaker and the bulkhead, so retries count against both.
 */
export class UpstreamResilience {
  private readonly breaker: SamplingCircuitBreaker;
  private readonly bulkhead: BulkheadPolicy;
  private readonly budget: RetryBudget;
  private readonly random: () => number;

  constructor(private readonly options: ResilienceOptions) {
    const { service } = options;
    this.breaker = new SamplingCircuitBreaker(options.breaker, breakerOutcome, (state) => options.onCircuitStateChange?.(service, state));
    this.bulkhead = bulkhead(options.bulkhead.maxConcurrent, options.bulkhead.maxQueued);
    this.budget = new RetryBudget(options.retry.budgetRatio, options.retry.budgetMinPerSecond);
    this.random = options.random ?? Math.random;
  }

  get circuitState(): CircuitStateName {
    return this.breaker.state;
  }

  /** Runs `attempt` under the policies; `deadline` is the request's (epoch ms), `signal` aborts at it. */
  async execute<T>(idempotent: boolean, attempt: () => Promise<T>, deadline: number, signal?: AbortSignal): Promise<T> {
    const once = () => this.guarded(attempt, signal);
    if (!idempotent || this.options.retry.maxRetries === 0) return once();
    this.budget.recordRequest();
    const policy = retry(
      handleWhen((err) => this.shouldRetry(err, deadline)),
      { maxAttempts: this.options.retry.maxRetries, backoff: new JitteredBackoff(this.options.retry, this.random, deadline) },
    );
    policy.onRetry((event) => {
      if ('error' in event && event.error instanceof UpstreamError) this.options.onRetry?.(this.options.service, event.attempt, event.delay, event.error);
    });
    try {
      return await policy.execute(once, signal);
    } catch (err) {
      // A wait cut short by the deadline surfaces as cockatiel's cancellation.
      if (err instanceof TaskCancelledError) throw deadlineError(this.options.service);
      throw err;
    }
  }

  private async guarded<T>(attempt: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    try {
      return await this.breaker.execute(() => this.bulkhead.execute(attempt, signal));
    } catch (err) {
      if (err instanceof CircuitOpenError) {
        throw new UpstreamError(this.options.service, 'unavailable', { detail: 'its circuit is open after repeated failures; calls fail fast until it recovers' });
      }
      if (err instanceof BulkheadRejectedError) {
        throw new UpstreamError(this.options.service, 'unavailable', { detail: 'the gateway is at its limit of concurrent calls to it; try again shortly' });
      }
      if (err instanceof TaskCancelledError) throw deadlineError(this.options.service);
      throw err;
    }
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

/**
 * What a call says about the upstream's health, by the error's kind and status alone:
 * - a failure: no answer in time, a refused or reset connection, a 5xx;
 * - a success: any answer about the request or the record (2xx, 404 and every other 4xx, a body that is not JSON
 *   or a record of the wrong shape): the service is up, the record or the request is the problem;
 * - not counted: the gateway's own doing (the request's deadline, a call shed by the bulkhead or cancelled).
 */
export function breakerOutcome(err: unknown): BreakerOutcome {
  // Cockatiel's own errors (a shed or cancelled call) are not UpstreamErrors, so they are ignored here too.
  if (!(err instanceof UpstreamError) || err.deadlineExceeded) return 'ignored';
  const failed = noAnswer(err) || (err.failure === 'status' && (err.status ?? 0) >= 500);
  return failed ? 'failure' : 'success';
}

/** The service gave no answer: none in time, or no connection (an open circuit or shed load is not the service's doing). */
function noAnswer(err: UpstreamError): boolean {
  return err.failure === 'timeout' || (err.failure === 'unavailable' && err.connectionFailed);
}

/** Exponential backoff with full jitter; an upstream's `Retry-After` wins; never past the request's deadline. */
class JitteredBackoff implements IBackoffFactory<IRetryBackoffContext<unknown>> {
  constructor(
    private readonly options: RetryOptions,
    private readonly random: () => number,
    private readonly deadline: number,
  ) {}

  next(context: IRetryBackoffContext<unknown>): IBackoff<IRetryBackoffContext<unknown>> {
    const error = 'error' in context.result ? context.result.error : undefined;
    const ceiling = Math.min(this.options.maxDelayMs, this.options.baseDelayMs * 2 ** Math.max(0, context.attempt - 1));
    const wanted = error instanceof UpstreamError && error.retryAfterMs !== undefined ? error.retryAfterMs : this.random() * ceiling;
    const duration = Math.max(0, Math.min(wanted, this.deadline - Date.now()));
    return { duration, next: (c) => this.next(c) };
  }
}
