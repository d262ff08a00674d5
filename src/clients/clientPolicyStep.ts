import { refusal, type GraphqlStep } from '../http/graphqlRoute';
import type { ClientRecord } from '../http/requestRecord';
import { ErrorCode } from '../errors/codes';
import type { ClientBudgets } from './budgets';
import type { ClientMetrics } from './clientMetrics';
import type { ClientsDirectory } from './clientsFile';
import { clientVersionOf, identify } from './identify';
import { rateLimitHeaders } from './rateLimitHeaders';

export interface ClientPolicyStepOptions {
  /** The validated clients file (CLIENTS_FILE). */
  directory: ClientsDirectory;
  /** Every client's request and upstream-call budgets (shared through Redis when REDIS_URL is set). */
  budgets: ClientBudgets;
  metrics: ClientMetrics;
}

/**
 * Client identity and rate limits, outermost of the /graphql steps: who is calling (401 when nobody the clients
 * file knows), its request budget and its upstream-call budget (429), then the request; afterwards the upstream calls
 * it made are charged, and every answer to a known client carries the RateLimit-Policy and RateLimit headers. Clients
 * bound to trusted documents are held to manifest ids further in (trustedDocumentsOnlyStep).
 */
export function clientPolicyStep(options: ClientPolicyStepOptions): GraphqlStep {
  const { directory, budgets, metrics } = options;
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
    const state: ClientRecord = { name: client.name, audience: client.audience, ...(version ? { version } : {}), known: client };
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
    const response = await next();
    const made = state.actualUpstreamCalls ?? 0;
    // Without upstream calls the budget stands where `take` read it: no second round trip to the store.
    const calls = made > 0 ? await budgets.charge(client, budgetKey, made) : taken.quotas[1];
    metrics.called(client.name, made);
    metrics.decided(client.name, state.refusedBy ?? 'allowed');
    for (const [name, value] of Object.entries(rateLimitHeaders([taken.quotas[0], calls]))) response.headers.set(name, value);
    return response;
  };
}

/**
 * For clients bound to trusted documents, after the trusted-documents step: every operation must have come by the
 * id of a manifest document. That refuses document text and a hash that only names an automatically persisted query
 * (APQ) alike: the trusted-documents step is the one judge of what came by id.
 */
export function trustedDocumentsOnlyStep(): GraphqlStep {
  return async (request, next) => {
    const state = request.record.client;
    if (!state?.known?.policy.trustedDocumentsOnly || request.record.document?.trusted) return next();
    const { name } = state;
    // Counted by the outer step, with the request's other decisions, when this answer passes back through it.
    state.refusedBy = 'trusted_documents';
    return refusal(400, ErrorCode.PERSISTED_QUERY_NOT_IN_LIST, `Client ${name} may only send trusted documents by id (extensions.persistedQuery or documentId), not document text or other hashes`, {});
  };
}
