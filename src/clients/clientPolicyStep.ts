import type { GraphqlRequest, GraphqlResponse, GraphqlStep } from '../http/graphqlRoute';
import { servedByTrustedId } from '../trustedDocuments';
import { errorBody } from '../http/send';
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
 * file knows), its request budget and its upstream-call budget (429), trusted documents only for clients bound to
 * them (400), then the request; afterwards the upstream calls it made are charged, and every answer to a known
 * client carries the RateLimit-Policy and RateLimit headers.
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
      return refusal(401, message, ErrorCode.UNAUTHENTICATED, { 'www-authenticate': 'ApiKey header="X-Api-Key"' });
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
      return refusal(429, `The ${what} of client ${client.name} is spent; retry after ${taken.retryAfterSeconds} s`, ErrorCode.RATE_LIMITED, {
        ...headers,
        'retry-after': String(taken.retryAfterSeconds),
      });
    }
    if (client.policy.trustedDocumentsOnly && sendsDocumentText(request)) {
      metrics.decided(client.name, 'trusted_documents');
      return refusal(400, `Client ${client.name} may only send trusted documents by id (extensions.persistedQuery or documentId), not document text`, ErrorCode.PERSISTED_QUERY_NOT_IN_LIST, headers);
    }

    const state: ClientRequestState = { client, logFields: request.logFields, actualUpstreamCalls: 0 };
    states.set(request, state);
    const response = await next();
    const calls = await budgets.charge(client, budgetKey, state.actualUpstreamCalls);
    metrics.called(client.name, state.actualUpstreamCalls);
    metrics.decided(client.name, state.refusedBy ?? 'allowed');
    for (const [name, value] of Object.entries(rateLimitHeaders([taken.quotas[0], calls]))) response.headers.set(name, value);
    return response;
  };
}

/**
 * For clients bound to trusted documents, after the trusted-documents step: every operation must have come by the
 * id of a manifest document. The outer step already refused document text; this also refuses a hash that only
 * names an automatically persisted query (APQ), which is no trusted document.
 */
export function trustedDocumentsOnlyStep(options: Pick<ClientPolicyStepOptions, 'states'>): GraphqlStep {
  return async (request, next) => {
    const state = options.states.get(request);
    if (!state?.client.policy.trustedDocumentsOnly || servedByTrustedId(request)) return next();
    const { name } = state.client;
    // Counted by the outer step, with the request's other decisions, when this answer passes back through it.
    state.refusedBy = 'trusted_documents';
    return refusal(400, `Client ${name} may only send trusted documents: this id names no operation of the trusted-document manifests`, ErrorCode.PERSISTED_QUERY_NOT_IN_LIST, {});
  };
}

function refusal(status: number, message: string, code: string, headers: Record<string, string>): GraphqlResponse {
  return {
    status,
    headers: new Map(Object.entries({ 'content-type': 'application/json; charset=utf-8', ...headers })),
    body: JSON.stringify(errorBody(message, code)),
    reachedPlugins: false,
  };
}

/** Whether any operation of the request carries document text (a `query`), rather than only naming a document by id. */
function sendsDocumentText(request: GraphqlRequest): boolean {
  if (request.method === 'GET') return (request.url.searchParams.get('query') ?? '') !== '';
  const operations: unknown[] = Array.isArray(request.body) ? request.body : [request.body];
  return operations.some((op) => typeof op === 'object' && op !== null && 'query' in op && typeof op.query === 'string' && op.query !== '');
}
