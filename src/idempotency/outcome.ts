/** What the step did with a request: the `idempotency` field of its log line and the metric's `outcome` label. */
export type IdempotencyOutcome =
  | 'stored' // ran; its response is kept for replays
  | 'released' // refused before any upstream call: nothing kept, the key is free again
  | 'replayed'
  | 'in_use' // 409
  | 'reused' // 422
  | 'unavailable' // 503: the store cannot be reached
  | 'unguarded' // the store cannot be reached and IDEMPOTENCY_FAIL_OPEN let the mutation run without the guarantee
  | 'store_failed' // ran, and its response could not be stored
  | 'too_large' // ran; its response was over the size bound and a 422 is kept in its place (counted besides `stored`)
  | 'invalid' // a malformed key or a batch with a key: 400
  | 'missing' // IDEMPOTENCY_REQUIRED mutation without a key: 400
  | 'evicted'; // the in-memory store dropped a stored response before its time to make room
