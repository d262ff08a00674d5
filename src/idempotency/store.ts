import type { OperationOutcome } from '../observability/metrics';

/** A response kept for an Idempotency-Key: what a replay sends, byte for byte. */
export interface StoredResponse {
  /** The request fingerprint it answered (src/idempotency/fingerprint.ts). */
  fingerprint: string;
  status: number;
  /** The `content-type` it was sent with, when it had one. */
  contentType?: string;
  body: string;
  /** How the answer ended, for a replay's log line and count (absent in records written before it was kept). */
  outcome?: OperationOutcome;
  errorCodes?: string[];
}

/**
 * What taking a key found. `taken`: the key was free and is now held by a lease of this request (`lease` names it);
 * `running`: another request holds it; `done`: a response is stored under it.
 */
export type TakeResult =
  | { readonly state: 'taken'; readonly lease: string }
  | { readonly state: 'running'; readonly fingerprint: string }
  | { readonly state: 'done'; readonly response: StoredResponse };

/**
 * Where idempotency records live: in this process (MemoryIdempotencyStore) or shared by every replica
 * (RedisIdempotencyStore). Keys arrive already scoped to the caller and hashed. A store that cannot answer rejects
 * with IdempotencyStoreUnavailableError; the step decides what that means for the request.
 */
export interface IdempotencyStore {
  /**
   * Atomically: when the key is free, holds it for `leaseMs` for a request with `fingerprint` (the lease expires by
   * itself should this replica die mid-request); otherwise says what holds it.
   */
  take(key: string, fingerprint: string, leaseMs: number): Promise<TakeResult>;
  /** Replaces the lease `lease` by the response, kept `ttlSeconds`. Does nothing when the lease is no longer held. */
  complete(key: string, lease: string, response: StoredResponse, ttlSeconds: number): Promise<void>;
  /** Frees the key held by `lease` (nothing stored: a retry runs again). Does nothing when the lease is gone. */
  release(key: string, lease: string): Promise<void>;
}

/** The store could not be reached or did not answer in time. */
export class IdempotencyStoreUnavailableError extends Error {
  constructor(options?: { cause?: unknown }) {
    super('the idempotency store is unavailable', options);
    this.name = 'IdempotencyStoreUnavailableError';
  }
}
