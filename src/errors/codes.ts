/** Every `extensions.code` the gateway itself gives (CONTRACT.md, "Errors"); Apollo's own codes pass through. */
export const ErrorCode = {
  BAD_USER_INPUT: 'BAD_USER_INPUT',
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  FORBIDDEN: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  FEATURE_DISABLED: 'FEATURE_DISABLED',
  UPSTREAM_TIMEOUT: 'UPSTREAM_TIMEOUT',
  UPSTREAM_UNAVAILABLE: 'UPSTREAM_UNAVAILABLE',
  UPSTREAM_BAD_RESPONSE: 'UPSTREAM_BAD_RESPONSE',
  UPSTREAM_ERROR: 'UPSTREAM_ERROR',
  INTERNAL_SERVER_ERROR: 'INTERNAL_SERVER_ERROR',
  /** The client's request rate or upstream-call budget is spent (HTTP 429, with Retry-After). */
  RATE_LIMITED: 'RATE_LIMITED',
  /** The operation's estimated cost is over the client's maximum (HTTP 400, `extensions.cost`). */
  COST_ESTIMATED_TOO_EXPENSIVE: 'COST_ESTIMATED_TOO_EXPENSIVE',
  /** Document text from a client bound to trusted documents (HTTP 400). */
  PERSISTED_QUERY_NOT_IN_LIST: 'PERSISTED_QUERY_NOT_IN_LIST',
  /** A repeat while the first request with its Idempotency-Key still runs (HTTP 409, CONTRACT.md "Idempotency-Key"). */
  IDEMPOTENCY_KEY_IN_USE: 'IDEMPOTENCY_KEY_IN_USE',
  /** The same Idempotency-Key with another request fingerprint (HTTP 422). */
  IDEMPOTENCY_KEY_REUSED: 'IDEMPOTENCY_KEY_REUSED',
  /** The idempotency store cannot be reached and IDEMPOTENCY_FAIL_OPEN is off (HTTP 503). */
  IDEMPOTENCY_UNAVAILABLE: 'IDEMPOTENCY_UNAVAILABLE',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];
