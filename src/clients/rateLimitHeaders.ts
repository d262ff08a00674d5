import type { QuotaState } from './budgets';

/**
 * The IETF httpapi rate-limit header fields, draft-ietf-httpapi-ratelimit-headers-10 syntax (Structured Field
 * lists of String items with parameters): `RateLimit-Policy: "requests";q=40;w=2, "upstream-calls";q=1200;w=60`
 * and `RateLimit: "requests";r=39;t=2, "upstream-calls";r=1188;t=57`. `q` quota, `w` window (s), `r` remaining,
 * `t` seconds until quota comes back. The quota unit is the default, requests: an upstream-call budget consumes
 * one unit per call a request makes, as the draft lets a server weigh requests.
 */
export function rateLimitHeaders(quotas: readonly QuotaState[]): Record<string, string> {
  return {
    'ratelimit-policy': quotas.map((q) => `"${q.name}";q=${q.quota};w=${q.windowSeconds}`).join(', '),
    ratelimit: quotas.map((q) => `"${q.name}";r=${q.remaining};t=${q.resetSeconds}`).join(', '),
  };
}
