import { refusal, type GraphqlRequest, type GraphqlStep } from '../http/graphqlRoute';
import { servedByTrustedId } from '../trustedDocuments';
import { ErrorCode } from '../errors/codes';
import type { ClientBudgets } from './budgets';
import type { ClientMetrics } from './clientMetrics';
import type { ClientsDirectory } from './clientsFile';
import { clientVersionOf, identify } from './identify';
import { rateLimitHeaders } from './rateLimitHeaders';
import type { ClientRequestState } from './state';

export interface ClientPolicyStepOptions {
  /** The validated clients file (CLIENTS_FILE). */
  directory: ClientsDirectory;
  /** Every client's request and upstream-call budgets (shared through Redis when REDIS_URL is set). */
  budgets: ClientBudgets;
  metrics: ClientMetrics;
  /** Where the step leaves each admitted request's state for the context (and so the cost plugin). */
  states: WeakMap<GraphqlRequest, ClientRequestState>;
}

/**
 * Client identity and rate limits, outermost of the /graphql steps: who is calling (401 when nobody the clients
 * file knows), its request budget and its upstream-call budget (429), then the request; afterwards the upstream calls
 * it made are charged, and every answer to a known client carries the RateLimit-Policy and RateLimit headers. Clients
 * bound to trusted documents are held to manifest ids further in (trustedDocumentsOnlyStep).
 */
export function clientPolicyStep(options: ClientPolicyStepOptions): GraphqlStep {
  const { directory, budgets, metrics, states } = options;
  return async (request, next) => {
    const who = identify(directory, request.header);
    if (!who.known) {
      request.logFields.client = who.reason === 'unknown_key' ? 'unknown' : 'anonymous';
      metrics.decided(request.logFields.client, 'unauthenticated');
      const message =
        who.reason === 'unknown_key'
          ? 'The X-Api-Key is not known'
          : 'Name your client: partners send X-Api-Key, first-party apps send apollographql-client-name';
      return refusal(401, ErrorCode.UNAUTHENTICATED, message, { 'www-authenticate': 'ApiKey header="X-Api-Key"' });
    }
    const { client, budgetKey } = who;
    request.logFields.client = client.name;
    request.logFields.clientAudience = client.audience;
    const version = clientVersionOf(request.header);
    if (version) request.logFields.clientVersion = version;

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
    const state: ClientRequestState = { client, logFields: request.logFields, actualUpstreamCalls: 0 };
    states.set(request, state);
    const response = await next();
    // Without upstream calls the budget stands where `take` read it: no second round trip to the store.
    const calls = state.actualUpstreamCalls > 0 ? await budgets.charge(client, budgetKey, state.actualUpstreamCalls) : taken.quotas[1];
    metrics.called(client.name, state.actualUpstreamCalls);
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
export function trustedDocumentsOnlyStep(options: Pick<ClientPolicyStepOptions, 'states'>): GraphqlStep {
  return async (request, next) => {
    const state = options.states.get(request);
    if (!state?.client.policy.trustedDocumentsOnly || servedByTrustedId(request)) return next();
    const { name } = state.client;
    // Counted by the outer step, with the request's other decisions, when this answer passes back through it.
    state.refusedBy = 'trusted_documents';
    return refusal(400, ErrorCode.PERSISTED_QUERY_NOT_IN_LIST, `Client ${name} may only send trusted documents by id (extensions.persistedQuery or documentId), not document text or other hashes`, {});
  };
}
