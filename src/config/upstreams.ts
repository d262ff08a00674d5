import type { BreakerOptions, BulkheadOptions, RetryOptions } from '../upstreams/resilience';
import type { UpstreamHttpOptions } from '../upstreams/http';
import type { Settings } from './settings';

/** One upstream's settings: the transport's options (documented there) and its resilience policies. */
export type UpstreamConfig = Readonly<
  Omit<UpstreamHttpOptions, 'service' | 'onCall' | 'resilience'> & {
    resilience: Readonly<{ retry: RetryOptions; breaker: BreakerOptions; bulkhead: BulkheadOptions }>;
  }
>;

/** The same settings for both services: one transport and one set of policies each, from the UPSTREAM_* settings. */
export function upstreamConfig(e: Settings, baseUrl: string): UpstreamConfig {
  return {
    baseUrl,
    connectTimeoutMs: e.UPSTREAM_CONNECT_TIMEOUT_MS,
    headersTimeoutMs: e.UPSTREAM_HEADERS_TIMEOUT_MS,
    bodyTimeoutMs: e.UPSTREAM_BODY_TIMEOUT_MS,
    connections: e.UPSTREAM_CONNECTIONS,
    maxResponseBytes: e.UPSTREAM_MAX_RESPONSE_BYTES,
    resilience: {
      retry: {
        maxRetries: e.UPSTREAM_RETRIES,
        baseDelayMs: e.UPSTREAM_RETRY_BASE_DELAY_MS,
        maxDelayMs: e.UPSTREAM_RETRY_MAX_DELAY_MS,
        maxRetryAfterMs: e.UPSTREAM_RETRY_AFTER_MAX_MS,
        budgetRatio: e.UPSTREAM_RETRY_BUDGET_RATIO,
        budgetMinPerSecond: e.UPSTREAM_RETRY_BUDGET_MIN_PER_SECOND,
      },
      breaker: {
        failureRatio: e.BREAKER_FAILURE_RATIO,
        windowMs: e.BREAKER_WINDOW_MS,
        minimumCalls: e.BREAKER_MINIMUM_CALLS,
        halfOpenAfterMs: e.BREAKER_HALF_OPEN_AFTER_MS,
        halfOpenProbes: e.BREAKER_HALF_OPEN_PROBES,
        consecutiveFailures: e.BREAKER_CONSECUTIVE_FAILURES,
      },
      bulkhead: { maxConcurrent: e.UPSTREAM_MAX_CONCURRENT, maxQueued: e.UPSTREAM_MAX_QUEUED },
    },
  };
}
