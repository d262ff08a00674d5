import { OperationTypeNode, buildASTSchema, getOperationAST, parse, type DocumentNode } from 'graphql';
import { persistedQueryNotFound } from '../apq/cache';
import type { Config } from '../config';
import { callerHash } from '../credentials';
import { ErrorCode } from '../errors/codes';
import { messageOf } from '../errors/errorFields';
import { rootFieldNames } from '../graphqlDocument';
import { answerOutcome, refusal, type GraphqlRequest, type GraphqlResponse, type GraphqlStep } from '../pipeline/types';
import type { OperationRequest } from '../http/operationRequests';
import type { Logger } from '../logger';
import type { GatewayMetrics, IdempotencyOutcome, IdempotencyStoreFailure } from '../observability/metrics';
import type { RedisConnection } from '../redis/connection';
import { loadTypeDefs } from '../schema';
import { sha256Hex } from '../sha256';
import { MemoryIdempotencyStore, RedisIdempotencyStore, type IdempotencyStore, type TakeResult } from './store';

/** The IDEMPOTENCY_ settings (defaults: kept 86400 s, bodies up to 262144 bytes, 503 while the store is away, none required), and: */
export interface IdempotencyStepOptions extends Partial<Config['idempotency']> {
  /** Where leases and stored responses live (MemoryIdempotencyStore, or RedisIdempotencyStore to share them). */
  store: IdempotencyStore;
  logger: Logger;
  /** Where the outcomes are counted; none in unit tests. */
  metrics?: GatewayMetrics;
  /** How long a running request holds its key; it must outlast the longest request. Default 30000. */
  leaseMs?: number;
  /** Token bound of the parse that tells a mutation from a query (MAX_TOKENS). Default 2000. */
  maxLexicalTokens?: number;
}

/** CONTRACT.md, "Idempotency-Key": 1–255 of `A-Z a-z 0-9 . _ : -`. */
const KEY_PATTERN = /^[A-Za-z0-9._:-]{1,255}$/;

/** How long a lease outlives REQUEST_TIMEOUT_MS: one that ran out while its request still ran would let a repeat run too. */
const LEASE_MARGIN_MS = 10_000;

/** The idempotency step as the settings describe it; records are shared by every replica through `redis` when set. */
export function idempotencyFromConfig(deps: { config: Config; logger: Logger; metrics: GatewayMetrics; redis?: RedisConnection }): GraphqlStep {
  const { config, metrics } = deps;
  const settings = config.idempotency;
  checkMutationNames(settings.required);
  return idempotencyStep({
    ...settings,
    store: deps.redis ? new RedisIdempotencyStore(deps.redis) : new MemoryIdempotencyStore({ maxBytes: settings.memoryMaxBytes, onEvict: () => metrics.observeIdempotency('evicted') }),
    logger: deps.logger,
    metrics,
    // In memory, a response must fit the store's bound (lru-cache refuses a larger one): past half of it, the 422.
    maxResponseBytes: deps.redis ? settings.maxResponseBytes : Math.min(settings.maxResponseBytes, settings.memoryMaxBytes / 2),
    leaseMs: config.requestTimeoutMs + LEASE_MARGIN_MS,
    maxLexicalTokens: config.limits.maxTokens,
  });
}

/** IDEMPOTENCY_REQUIRED names mutation fields of the schema: a misspelt one would silently require nothing. */
function checkMutationNames(names: readonly string[]): void {
  if (names.length === 0) return;
  const known = Object.keys(buildASTSchema(parse(loadTypeDefs())).getMutationType()?.getFields() ?? {});
  const unknown = names.filter((name) => !known.includes(name));
  if (unknown.length > 0) throw new Error(`IDEMPOTENCY_REQUIRED: not a mutation of the schema: ${unknown.join(', ')} (known: ${known.join(', ')})`);
}

/**
 * Idempotent mutations: the first request with an `Idempotency-Key` takes the key, runs, and keeps its
 * response for a repeat to replay; a repeat while it runs gets 409; the key with another request gets 422. Keys are
 * scoped to the caller's credentials (callerHash) and stored only as a hash of both. A request refused before any
 * upstream request went out keeps nothing, so its retry runs; one that may have reached a service keeps its
 * response, whatever it was, so a retry never books twice.
 */
export function idempotencyStep(options: IdempotencyStepOptions): GraphqlStep {
  const { store, logger, metrics, ttlSeconds = 86_400, maxResponseBytes = 256 * 1024, leaseMs = 30_000, maxLexicalTokens = 2000 } = options;
  const required = new Set(options.required ?? []);

  const note = ({ record }: GraphqlRequest, outcome: IdempotencyOutcome): void => {
    record.idempotency = { ...record.idempotency, outcome };
    metrics?.observeIdempotency(outcome);
  };
  const refuse = (request: GraphqlRequest, outcome: IdempotencyOutcome, status: number, code: string, message: string, headers?: Record<string, string>) => {
    note(request, outcome);
    return refusal(status, code, message, headers);
  };
  /** 503 before any upstream call: nothing ran, and the same key may be sent again. */
  const unavailable = () =>
    refusal(503, ErrorCode.IDEMPOTENCY_UNAVAILABLE, 'Idempotency-Key cannot be honoured right now (its store is unavailable); retry later with the same key', { 'retry-after': '1' });
  /** What the logs show of the scoped key: the start of its hash. */
  const logFields = (request: GraphqlRequest, err?: unknown) => ({
    ...(err === undefined ? {} : { err: { message: messageOf(err) } }),
    requestId: request.record.requestId,
    idempotencyKey: request.record.idempotency?.scopedKey?.slice(0, 16),
  });

  async function run(request: GraphqlRequest, next: () => Promise<GraphqlResponse>, key: string, lease: string, fingerprint: string): Promise<GraphqlResponse> {
    // The transports mark each call written to a connection (src/upstreams/transport.ts); none written means the
    // request was refused before any upstream request.
    const sent = () => request.record.upstreamCalls.some((call) => call.sent !== false);
    // Before the first byte of a write goes upstream, the key records that it may reach the upstream: should this
    // replica die before the answer is stored, the key is not freed when the lease lapses (IDEMPOTENCY_OUTCOME_UNKNOWN).
    let marked: Promise<void> | undefined;
    let unmarked: string | undefined;
    request.record.beforeUpstreamWrite = () =>
      (marked ??= store.markSent(key, lease, ttlSeconds).then(
        (result) => {
          if (result !== 'recorded') throw new Error((unmarked = result === 'lease_lost' ? "the key's lease was gone" : 'no Redis replica acknowledged it in time'));
        },
        (err: unknown) => {
          unmarked = messageOf(err);
          throw err;
        },
      ));
    // The lease is renewed while the request runs (every third of it), so a slow upstream never outlives it.
    const renewal = setInterval(() => {
      store.renew(key, lease, leaseMs).then(
        (held) => {
          if (!held) logger.error(logFields(request), 'idempotency lease lost while its request still ran: a repeat may be told the outcome is unknown');
        },
        (err: unknown) => logger.warn(logFields(request, err), 'idempotency lease could not be renewed'),
      );
    }, Math.max(1, Math.floor(leaseMs / 3)));
    renewal.unref();
    try {
      const response = await next().catch(async (err: unknown) => {
        // The route answers a thrown request with this body; keep it when a service may have acted.
        await settle(request, key, lease, sent() ? refusal(500, ErrorCode.INTERNAL_SERVER_ERROR, 'Internal server error') : undefined, fingerprint);
        throw err;
      });
      if (unmarked !== undefined) {
        // Every write waited for the mark and was stopped before its first byte (reads may have gone: they change
        // nothing): nothing ran, the key is free, the client retries.
        await settle(request, key, lease, undefined, fingerprint);
        logger.warn({ ...logFields(request), reason: unmarked }, 'idempotency key could not be marked sent durably: keyed mutation refused before any upstream call');
        note(request, 'unavailable');
        return unavailable();
      }
      await settle(request, key, lease, sent() ? response : undefined, fingerprint);
      return response;
    } finally {
      clearInterval(renewal);
      request.record.beforeUpstreamWrite = undefined;
    }
  }

  /** A completion not written as it must be: an error in the log and the failures metric, never a silent `stored`. */
  function failed(request: GraphqlRequest, reason: IdempotencyStoreFailure, err?: unknown): void {
    metrics?.countIdempotencyStoreFailure(reason);
    const messages: Record<IdempotencyStoreFailure, string> = {
      lease_lost: "idempotency response not stored: the key's lease was gone (a repeat is told IDEMPOTENCY_OUTCOME_UNKNOWN or runs again)",
      not_durable: 'idempotency response not stored durably: no Redis replica acknowledged it in time (a failover now could lose it)',
      unavailable: 'idempotency record could not be written',
    };
    logger.error({ ...logFields(request, err), reason }, messages[reason]);
  }

  /** Stores the response a service may have acted on, before it is sent; otherwise frees the key. */
  async function settle(request: GraphqlRequest, key: string, lease: string, response: GraphqlResponse | undefined, fingerprint: string): Promise<void> {
    try {
      if (!response) {
        await store.release(key, lease);
        note(request, 'released');
        return;
      }
      const bytes = Buffer.byteLength(response.body);
      const whole = bytes <= maxResponseBytes;
      // One too large to keep is not forgotten (a service may have acted): a repeat gets a 422 saying it ran.
      const kept = whole
        ? response
        : refusal(
            422,
            ErrorCode.IDEMPOTENCY_KEY_REUSED,
            `The request first sent with this Idempotency-Key ran, but its response (${bytes} bytes) was larger than the gateway keeps, so it cannot be replayed; it is not run again. Read its outcome with a query, and use a new key for a new request.`,
          );
      const answered = whole ? answerOutcome(request.record, response) : kept.outcome;
      const result = await store.complete(key, lease, { fingerprint, status: kept.status, contentType: kept.headers.get('content-type'), body: kept.body.toString(), ...answered }, ttlSeconds);
      if (result === 'lease_lost') {
        note(request, 'store_failed');
        failed(request, 'lease_lost');
        return;
      }
      note(request, result === 'stored' ? 'stored' : 'not_durable');
      if (result === 'not_durable') failed(request, 'not_durable');
      if (!whole) {
        metrics?.observeIdempotency('too_large');
        logger.warn({ ...logFields(request), bytes, maxResponseBytes }, 'idempotent response too large to keep: a repeat gets 422');
      }
    } catch (err) {
      // Without the store the lease stays until it expires: repeats get 409 until then.
      note(request, response ? 'store_failed' : 'released');
      if (response) failed(request, 'unavailable', err);
      else logger.error(logFields(request, err), 'idempotency record could not be written');
    }
  }

  /** A request without the header never touches the store, and passes on without a promise of this step's own. */
  const unkeyed: GraphqlStep = (request, next) => {
    // IDEMPOTENCY_REQUIRED: a listed mutation without a key is refused, naming the header.
    const field = required.size === 0 ? undefined : request.read.operations.flatMap((op) => [...(mutationFields(op, maxLexicalTokens) ?? [])]).find((name) => required.has(name));
    if (field) return Promise.resolve(refuse(request, 'missing', 400, ErrorCode.BAD_USER_INPUT, `${field} requires an Idempotency-Key header (a new unique key per intended request, the same key on its retries)`));
    return next();
  };

  const keyed = async (request: GraphqlRequest, next: () => Promise<GraphqlResponse>, key: string): Promise<GraphqlResponse> => {
    if (request.read.batched) {
      return refuse(request, 'invalid', 400, ErrorCode.BAD_USER_INPUT, 'Idempotency-Key is not accepted on a batched request: send each mutation on its own, with its own key');
    }
    const [op] = request.read.operations;
    // A hash no text was registered under when it was resolved is answered as Apollo would: Apollo's own second
    // look-up could find a text another replica registered meanwhile and run a mutation this step never saw.
    if (op?.ask.kind === 'id' && op.ask.via === 'persistedQuery' && !op.resolvedBy) return persistedQueryNotFound();
    // Queries are safe to repeat: the header does nothing there.
    if (!op || !mutationFields(op, maxLexicalTokens)) return next();
    if (!KEY_PATTERN.test(key)) return refuse(request, 'invalid', 400, ErrorCode.BAD_USER_INPUT, 'Idempotency-Key must be 1 to 255 characters of A-Z a-z 0-9 . _ : -');
    // One venue's key never meets another's: the key is scoped by the caller's credentials, both only as a hash, and
    // by the client the clients file named (two partners acting for one venue keep separate keys).
    const scopedKey = sha256Hex(`${callerHash(request.header)}\n${request.record.client?.name ?? ''}\n${key}`);
    request.record.idempotency = { scopedKey };
    const fingerprint = requestFingerprint({ documentText: op.query!, operationName: op.operationName ?? null, variables: op.variables ?? {} });
    let taken: TakeResult;
    try {
      taken = await store.take(scopedKey, fingerprint, leaseMs);
    } catch (err) {
      if (!options.failOpen) {
        logger.warn(logFields(request, err), 'idempotency store unavailable: keyed mutation refused');
        note(request, 'unavailable');
        return unavailable();
      }
      logger.warn(logFields(request, err), 'idempotency store unavailable: keyed mutation runs without the guarantee (IDEMPOTENCY_FAIL_OPEN)');
      note(request, 'unguarded');
      return next();
    }
    if (taken.state === 'taken') return run(request, next, scopedKey, taken.lease, fingerprint);
    // Another fingerprint is refused first, even while the first request still runs.
    if ((taken.state === 'done' ? taken.response.fingerprint : taken.fingerprint) !== fingerprint) {
      return refuse(request, 'reused', 422, ErrorCode.IDEMPOTENCY_KEY_REUSED, 'This Idempotency-Key was already used for a different request (document, operation name or variables); use a new key');
    }
    if (taken.state === 'unknown') {
      logger.warn(logFields(request), 'idempotency outcome unknown: a request with this key may have reached the upstream and its answer was never stored (its replica died); refused');
      return refuse(
        request,
        'outcome_unknown',
        409,
        ErrorCode.IDEMPOTENCY_OUTCOME_UNKNOWN,
        'A request with this Idempotency-Key may have reached the service, and its outcome was never recorded; check the current state with a query before trying again with a new key',
      );
    }
    if (taken.state === 'running') {
      return refuse(request, 'in_use', 409, ErrorCode.IDEMPOTENCY_KEY_IN_USE, 'A request with this Idempotency-Key is still running; retry after a moment with the same key', { 'retry-after': '1' });
    }
    note(request, 'replayed');
    const { status, contentType, body, outcome, errorCodes } = taken.response;
    const headers = new Map<string, string>(contentType === undefined ? [] : [['content-type', contentType]]);
    headers.set('idempotent-replayed', 'true');
    return { status, headers, body, outcome: { outcome: outcome ?? (status < 400 ? 'success' : 'error'), errorCodes: errorCodes ?? [] } };
  };

  return (request, next) => {
    const key = request.header('idempotency-key');
    return key === undefined ? unkeyed(request, next) : keyed(request, next, key);
  };
}

/**
 * The names (not aliases) of the mutation fields an operation request selects at its root, through fragments too; or
 * undefined when it selects something else, is not a well-formed request (Apollo will refuse it before any upstream
 * call), or names a persisted query not resolved to its text. The parse is bounded as Apollo's (MAX_TOKENS).
 */
function mutationFields(op: OperationRequest, maxLexicalTokens: number): ReadonlySet<string> | undefined {
  const text = op.query;
  // A mutation document spells the keyword: most queries are told apart without being parsed.
  if (!op.wellFormed || text === undefined || !text.includes('mutation')) return undefined;
  let document: DocumentNode;
  try {
    document = parse(text, { noLocation: true, maxLexicalTokens });
  } catch {
    return undefined;
  }
  const operation = getOperationAST(document, op.operationName);
  return operation?.operation === OperationTypeNode.MUTATION ? rootFieldNames(document, operation) : undefined;
}

/**
 * CONTRACT.md's fingerprint: SHA-256 of the document text's SHA-256, the operation name and the variables as
 * canonical JSON, newline-separated. Each part has a fixed form, so no two different requests give the same input.
 */
export function requestFingerprint(parts: { documentText: string; operationName: string | null; variables: Readonly<Record<string, unknown>> }): string {
  return sha256Hex(`${sha256Hex(parts.documentText)}\n${JSON.stringify(parts.operationName)}\n${canonicalJson(parts.variables)}`);
}

/**
 * JSON with object keys sorted at every depth. Arrays keep their order; a key whose value is `null` stays, so an
 * omitted variable differs from `null`.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, field]) => field !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, field]) => `${JSON.stringify(key)}:${canonicalJson(field)}`);
    return `{${entries.join(',')}}`;
  }
  // Parsed JSON holds only strings, finite numbers, booleans and null here: JSON.stringify writes each one way.
  return JSON.stringify(value);
}
