import { persistedQueryNotFound } from '../apq/cache';
import { callerHash } from '../credentials';
import { ErrorCode } from '../errors/codes';
import { messageOf } from '../errors/errorFields';
import { answerOutcome, refusal, type GraphqlRequest, type GraphqlResponse, type GraphqlStep } from '../http/graphqlRoute';
import type { Logger } from '../logger';
import type { GatewayMetrics } from '../observability/metrics';
import { sha256Hex } from '../sha256';
import { requestFingerprint } from './fingerprint';
import { selectedMutation } from './operation';
import { replay, toStored } from './responses';
import type { IdempotencyOutcome } from './outcome';
import type { IdempotencyStore, TakeResult } from './store';

export interface IdempotencyStepOptions {
  /** Where leases and stored responses live (MemoryIdempotencyStore, or RedisIdempotencyStore to share them). */
  store: IdempotencyStore;
  logger: Logger;
  /** Where the outcomes are counted; none in unit tests. */
  metrics?: GatewayMetrics;
  /** How long a stored response is replayed (IDEMPOTENCY_TTL_SECONDS). Default 86400. */
  ttlSeconds?: number;
  /** Largest response body kept whole (IDEMPOTENCY_MAX_RESPONSE_BYTES). Default 262144. */
  maxResponseBytes?: number;
  /** When the store cannot be reached, run keyed mutations without the guarantee instead of a 503. Default false. */
  failOpen?: boolean;
  /** Mutation fields that refuse a request without a key (IDEMPOTENCY_REQUIRED). Default none. */
  required?: readonly string[];
  /**
   * How long a running request holds its key. It must outlast the longest request (REQUEST_TIMEOUT_MS and some):
   * it only ends early when a replica dies mid-request, which frees the key. Default 30000.
   */
  leaseMs?: number;
  /** Seconds a 409 tells the client to wait (`Retry-After`). Default 1. */
  retryAfterSeconds?: number;
  /** Token bound of the parse that tells a mutation from a query (MAX_TOKENS). Default 2000. */
  maxLexicalTokens?: number;
}

/** The scoped key as the logs show it: the start of its hash. */
function keyHash(request: GraphqlRequest): string | undefined {
  return request.record.idempotency?.scopedKey?.slice(0, 16);
}

/** CONTRACT.md, "Idempotency-Key": 1–255 of `A-Z a-z 0-9 . _ : -`. */
const KEY_PATTERN = /^[A-Za-z0-9._:-]{1,255}$/;
const HEADER = 'idempotency-key';

/**
 * Idempotent mutations: the first request with an `Idempotency-Key` takes the key, runs, and keeps its
 * response for a repeat to replay; a repeat while it runs gets 409; the key with another request gets 422. Keys are
 * scoped to the caller's credentials (callerHash) and stored only as a hash of both. A request refused before any
 * upstream request went out keeps nothing, so its retry runs; one that may have reached a service keeps its
 * response, whatever it was, so a retry never books twice.
 */
export function idempotencyStep(options: IdempotencyStepOptions): GraphqlStep {
  const { store, logger, metrics } = options;
  const ttlSeconds = options.ttlSeconds ?? 86_400;
  const maxResponseBytes = options.maxResponseBytes ?? 256 * 1024;
  const leaseMs = options.leaseMs ?? 30_000;
  const retryAfter = String(options.retryAfterSeconds ?? 1);
  const required = new Set(options.required ?? []);
  const maxLexicalTokens = options.maxLexicalTokens ?? 2000;

  const note = ({ record }: GraphqlRequest, outcome: IdempotencyOutcome): void => {
    record.idempotency = { ...record.idempotency, outcome };
    metrics?.observeIdempotency(outcome);
  };
  const refuse = (request: GraphqlRequest, outcome: IdempotencyOutcome, response: GraphqlResponse): GraphqlResponse => {
    note(request, outcome);
    return response;
  };

  /** IDEMPOTENCY_REQUIRED: a listed mutation without a key is refused, naming the header. */
  async function requireKey(request: GraphqlRequest, next: () => Promise<GraphqlResponse>): Promise<GraphqlResponse> {
    for (const op of request.read.operations) {
      const mutation = selectedMutation(op, maxLexicalTokens);
      const field = mutation && [...mutation.rootFields].find((name) => required.has(name));
      if (field) return refuse(request, 'missing', refusal(400, ErrorCode.BAD_USER_INPUT, `${field} requires an Idempotency-Key header (a new unique key per intended request, the same key on its retries)`));
    }
    return next();
  }

  async function run(request: GraphqlRequest, next: () => Promise<GraphqlResponse>, key: string, lease: string, fingerprint: string): Promise<GraphqlResponse> {
    // The transports mark each call written to a connection (src/upstreams/transport.ts); none written means the
    // request was refused before any upstream request: invalid input, limits, missing credential, open circuit,
    // refused connection.
    const sent = () => request.record.upstreamCalls.some((call) => call.sent !== false);
    let response: GraphqlResponse;
    try {
      response = await next();
    } catch (err) {
      // The route answers a thrown request with this body; keep it when a service may have acted.
      await settle(request, key, lease, sent() ? refusal(500, ErrorCode.INTERNAL_SERVER_ERROR, 'Internal server error') : undefined, fingerprint);
      throw err;
    }
    await settle(request, key, lease, sent() ? response : undefined, fingerprint);
    return response;
  }

  /** Stores the response a service may have acted on, before it is sent; otherwise frees the key. */
  async function settle(request: GraphqlRequest, key: string, lease: string, response: GraphqlResponse | undefined, fingerprint: string): Promise<void> {
    try {
      if (!response) {
        await store.release(key, lease);
        note(request, 'released');
        return;
      }
      const { stored, whole } = toStored(response, answerOutcome(request.record, response), fingerprint, maxResponseBytes);
      await store.complete(key, lease, stored, ttlSeconds);
      note(request, 'stored');
      if (!whole) {
        metrics?.observeIdempotency('too_large');
        logger.warn({ requestId: request.record.requestId, idempotencyKey: keyHash(request), bytes: Buffer.byteLength(response.body), maxResponseBytes }, 'idempotent response too large to keep: a repeat gets 422');
      }
    } catch (err) {
      // Without the store the lease stays until it expires: repeats get 409 until then.
      note(request, response ? 'store_failed' : 'released');
      logger.error({ err: { message: messageOf(err) }, requestId: request.record.requestId, idempotencyKey: keyHash(request) }, 'idempotency record could not be written');
    }
  }

  async function unavailable(request: GraphqlRequest, next: () => Promise<GraphqlResponse>, err: unknown): Promise<GraphqlResponse> {
    const fields = { err: { message: messageOf(err) }, requestId: request.record.requestId, idempotencyKey: keyHash(request) };
    if (!options.failOpen) {
      logger.warn(fields, 'idempotency store unavailable: keyed mutation refused');
      return refuse(request, 'unavailable', refusal(503, ErrorCode.IDEMPOTENCY_UNAVAILABLE, 'Idempotency-Key cannot be honoured right now (its store is unavailable); retry later with the same key'));
    }
    logger.warn(fields, 'idempotency store unavailable: keyed mutation runs without the guarantee (IDEMPOTENCY_FAIL_OPEN)');
    note(request, 'unguarded');
    return next();
  }

  return async (request, next) => {
    const key = request.header(HEADER);
    // Requests without the header never touch the store.
    if (key === undefined) return required.size === 0 ? next() : requireKey(request, next);
    if (request.read.batched) {
      return refuse(request, 'invalid', refusal(400, ErrorCode.BAD_USER_INPUT, 'Idempotency-Key is not accepted on a batched request: send each mutation on its own, with its own key'));
    }
    const [op] = request.read.operations;
    // A hash no text was registered under when it was resolved is answered as Apollo would: Apollo's own second
    // look-up could find a text another replica registered meanwhile and run a mutation this step never saw.
    if (op?.ask.kind === 'id' && op.ask.via === 'persistedQuery' && !op.resolvedBy) return persistedQueryNotFound();
    const mutation = op && selectedMutation(op, maxLexicalTokens);
    // Queries are safe to repeat: the header does nothing there.
    if (!mutation) return next();
    if (!KEY_PATTERN.test(key)) {
      return refuse(request, 'invalid', refusal(400, ErrorCode.BAD_USER_INPUT, 'Idempotency-Key must be 1 to 255 characters of A-Z a-z 0-9 . _ : -'));
    }
    // One venue's key never meets another's: the key is scoped by the caller's credentials, both only as a hash, and
    // by the client the clients file named (two partners acting for one venue keep separate keys).
    const scopedKey = sha256Hex(`${callerHash(request.header)}\n${request.record.client?.name ?? ''}\n${key}`);
    request.record.idempotency = { scopedKey };
    const fingerprint = requestFingerprint(mutation);
    let taken: TakeResult;
    try {
      taken = await store.take(scopedKey, fingerprint, leaseMs);
    } catch (err) {
      return unavailable(request, next, err);
    }
    if (taken.state === 'taken') return run(request, next, scopedKey, taken.lease, fingerprint);
    const sameRequest = (taken.state === 'running' ? taken.fingerprint : taken.response.fingerprint) === fingerprint;
    // Another fingerprint is refused first, even while the first request still runs.
    if (!sameRequest) {
      return refuse(request, 'reused', refusal(422, ErrorCode.IDEMPOTENCY_KEY_REUSED, 'This Idempotency-Key was already used for a different request (document, operation name or variables); use a new key'));
    }
    if (taken.state === 'running') {
      return refuse(request, 'in_use', refusal(409, ErrorCode.IDEMPOTENCY_KEY_IN_USE, 'A request with this Idempotency-Key is still running; retry after a moment with the same key', { 'retry-after': retryAfter }));
    }
    note(request, 'replayed');
    return replay(taken.response);
  };
}
