import type { Config } from '../config';
import { callerHash } from '../credentials';
import { ErrorCode } from '../errors/codes';
import { afterAnswer } from '../pipeline/streamEnd';
import { refusal, type GraphqlResponse, type GraphqlStep } from '../pipeline/types';
import type { ClientRecord, KnownClient } from '../pipeline/record';
import { clientCostPolicy } from '../limits/costLimit';
import type { GatewayMetrics } from '../observability/metrics';
import type { RedisConnection } from '../redis/connection';
import { sha256Hex } from '../sha256';
import type { ClientBudgets, QuotaState } from './budgets';
import { ClientMetrics } from './clientMetrics';
import type { ClientsDirectory } from './clientsFile';

type Header = (lowerName: string) => string | undefined;

/** The client policies of one gateway, read and validated at start; undefined without CLIENTS_FILE (every caller served). */
export function createClientPolicies(config: Config, deps: { metrics: GatewayMetrics; redis?: RedisConnection }) {
  if (!config.clients.file) return undefined;
  // Loaded only with a clients file: a gateway without one loads neither the YAML parser nor the rate limiter.
  const { loadClientsFile } = require('./clientsFile') as typeof import('./clientsFile');
  const { ClientBudgets } = require('./budgets') as typeof import('./budgets');
  const directory = loadClientsFile(config.clients.file);
  const bound = directory.all.filter((c) => c.policy.trustedDocumentsOnly).map((c) => c.name);
  if (bound.length > 0 && config.trustedDocuments.mode === 'off') {
    // Every request of theirs would be refused: say so at start instead.
    throw new Error(`CLIENTS_FILE: ${bound.join(', ')} may only send trusted documents, but TRUSTED_DOCUMENTS_MODE is off`);
  }
  const metrics = new ClientMetrics(deps.metrics.registry);
  const budgets = new ClientBudgets({ clients: directory.all, redis: deps.redis, localShareOf: config.clients.localShareOf });
  // `budgets`: live polls charge each read's upstream calls to their subscribers' budgets too.
  return { step: clientPolicyStep(directory, budgets, metrics), trustedOnlyStep: trustedDocumentsOnlyStep(), cost: clientCostPolicy({ metrics }), budgets };
}

/** Outermost: who is calling (401), its budgets (429), then the request, whose upstream calls are charged after. */
function clientPolicyStep(directory: ClientsDirectory, budgets: ClientBudgets, metrics: ClientMetrics): GraphqlStep {
  return async (request, next) => {
    const { record } = request;
    const who = identify(directory, request.header);
    if (!who.known) {
      record.client = { name: who.reason === 'unknown_key' ? 'unknown' : 'anonymous' };
      metrics.decided(record.client.name, 'unauthenticated');
      const message =
        who.reason === 'unknown_key'
          ? 'The X-Api-Key is not known'
          : 'Name your client: partners send X-Api-Key, first-party apps send apollographql-client-name';
      return refusal(401, ErrorCode.UNAUTHENTICATED, message, { 'www-authenticate': 'ApiKey header="X-Api-Key"' });
    }
    const { client, budgetKey } = who;
    const version = clientVersionOf(request.header);
    const state: ClientRecord = { name: client.name, audience: client.audience, ...(version ? { version } : {}), known: client, budgetKey };
    record.client = state;

    const taken = await budgets.take(client, budgetKey);
    const headers = rateLimitHeaders(taken.quotas);
    if (!taken.allowed) {
      metrics.decided(client.name, taken.reason);
      const what = taken.reason === 'rate_limited' ? 'request rate' : 'upstream-call budget';
      return refusal(429, ErrorCode.RATE_LIMITED, `The ${what} of client ${client.name} is spent; retry after ${taken.retryAfterSeconds} s`, {
        ...headers,
        'retry-after': String(taken.retryAfterSeconds),
      });
    }
    // Each operation reserves its estimated upstream calls before it runs (src/limits/costLimit.ts).
    state.reserveCalls = (calls) => budgets.reserve(client, budgetKey, calls);
    let response: GraphqlResponse;
    try {
      response = await next();
    } catch (err) {
      // A request that failed inside the gateway still settles what it reserved against what it made.
      await budgets.settle(client, budgetKey, state.reservedCalls ?? 0, state.actualUpstreamCalls ?? 0).catch(() => undefined);
      throw err;
    }
    // A stream's headers go out before its later parts make their calls: they say the budget as `take` read it.
    if (response.stream) for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
    // Settled once the whole answer is out: an incremental answer's later parts make calls too.
    return afterAnswer(response, async () => {
      const made = state.actualUpstreamCalls ?? 0;
      const reserved = state.reservedCalls ?? 0;
      // Without upstream calls or reservations the budget stands where `take` read it: no second round trip to the store.
      const calls = made > 0 || reserved > 0 ? await budgets.settle(client, budgetKey, reserved, made) : taken.quotas[1];
      metrics.called(client.name, made);
      metrics.decided(client.name, state.refusedBy ?? 'allowed');
      if (!response.stream) for (const [name, value] of Object.entries(rateLimitHeaders([taken.quotas[0], calls]))) response.headers.set(name, value);
    });
  };
}

/** After the trusted-documents step: clients bound to trusted documents came by a manifest id, not text nor an APQ hash. */
function trustedDocumentsOnlyStep(): GraphqlStep {
  return async (request, next) => {
    const state = request.record.client;
    if (!state?.known?.policy.trustedDocumentsOnly || request.record.document?.trusted) return next();
    // Counted by the outer step, with the request's other decisions, when this answer passes back through it.
    state.refusedBy = 'trusted_documents';
    return refusal(400, ErrorCode.PERSISTED_QUERY_NOT_IN_LIST, `Client ${state.name} may only send trusted documents by id (extensions.persistedQuery or documentId), not document text or other hashes`, {});
  };
}

/**
 * A partner by `X-Api-Key` (looked up by its SHA-256; an unknown key is always refused), else a first-party app by
 * `apollographql-client-name`, else the file's anonymous policy when it has one. A first-party name is a label
 * anyone can send, not a credential: its budgets, and the anonymous ones, are kept per venue (callerHash), so one
 * venue never spends another's. A partner's budget is the partner's, whatever venue it calls for.
 */
function identify(directory: ClientsDirectory, header: Header): { known: true; client: KnownClient; budgetKey: string } | { known: false; reason: 'unknown_key' | 'anonymous_not_allowed' } {
  const key = header('x-api-key');
  if (key !== undefined && key !== '') {
    const partner = directory.byKeyHash.get(sha256Hex(key));
    return partner ? { known: true, client: partner, budgetKey: 'partner' } : { known: false, reason: 'unknown_key' };
  }
  const name = header('apollographql-client-name');
  const client = (name === undefined ? undefined : directory.firstParty.get(name)) ?? directory.anonymous;
  return client ? { known: true, client, budgetKey: `venue:${callerHash(header)}` } : { known: false, reason: 'anonymous_not_allowed' };
}

/** A client version for the log line: what Apollo Client sends, kept only when short and plain. */
function clientVersionOf(header: Header): string | undefined {
  const version = header('apollographql-client-version');
  return version && /^[A-Za-z0-9._+-]{1,64}$/.test(version) ? version : undefined;
}

/**
 * The IETF httpapi rate-limit header fields (draft-ietf-httpapi-ratelimit-headers-10): `RateLimit-Policy:
 * "requests";q=40;w=2, "upstream-calls";q=1200;w=60` and `RateLimit: "requests";r=39;t=2, …`. An upstream-call
 * budget consumes one unit per call a request makes, as the draft lets a server weigh requests.
 */
function rateLimitHeaders(quotas: readonly QuotaState[]): Record<string, string> {
  return {
    'ratelimit-policy': quotas.map((q) => `"${q.name}";q=${q.quota};w=${q.windowSeconds}`).join(', '),
    ratelimit: quotas.map((q) => `"${q.name}";r=${q.remaining};t=${q.resetSeconds}`).join(', '),
  };
}
