import { GraphQLError } from 'graphql';
import type { SubscribePayload } from 'graphql-ws';
import type { ClientRequestState } from '../clients/state';
import { requestIdFrom } from '../context';
import type { GraphqlRequest, GraphqlResponse, GraphqlStep } from '../http/graphqlRoute';

/**
 * The headers of a WebSocket's requests: the string properties of its `connection_init` payload, by lower-cased
 * name (browsers cannot set headers on a WebSocket; CONTRACT.md, "Live subscriptions").
 */
export function headersOf(payload: Readonly<Record<string, unknown>> | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(payload ?? {})) if (typeof value === 'string') headers[name.toLowerCase()] = value;
  return headers;
}

/** A subscription admitted by the HTTP layer's policies: its request record, the document text, and its client. */
export interface LiveScope {
  readonly request: GraphqlRequest;
  /** The document to run: the manifest body when the subscription named a trusted document by id. */
  readonly query: string;
  readonly client: ClientRequestState | undefined;
}

export interface LiveScopeOptions {
  /** The HTTP route's policies that decide on the caller and the document (client identity and budgets, trusted documents). */
  steps: readonly GraphqlStep[];
  /** The client the client step admitted, for the cost policy. */
  stateOf?: (request: GraphqlRequest) => ClientRequestState | undefined;
}

/**
 * Runs one subscribe message through the same policies as an HTTP request with the connection's headers, as a POST
 * of the same body: it is admitted, or refused with the errors an HTTP client would read.
 */
export async function liveScope(options: LiveScopeOptions, headers: Readonly<Record<string, string>>, payload: SubscribePayload): Promise<LiveScope | readonly GraphQLError[]> {
  const request: GraphqlRequest = {
    method: 'POST',
    url: new URL('http://gateway.invalid/graphql'),
    header: (name) => headers[name],
    incomingHeaders: headers,
    // graphql-ws requires a string query: a trusted document named by id comes with an empty one.
    body: {
      query: payload.query === '' ? undefined : payload.query,
      variables: payload.variables ?? undefined,
      operationName: payload.operationName ?? undefined,
      extensions: payload.extensions ?? undefined,
      documentId: documentIdOf(payload),
    },
    requestId: requestIdFrom(headers['x-request-id']),
    started: performance.now(),
    logFields: {},
    upstreamCalls: [],
  };
  let admitted = false;
  const admit = (): Promise<GraphqlResponse> => {
    admitted = true;
    return Promise.resolve({ status: 200, headers: new Map(), body: '', reachedPlugins: true });
  };
  const chain = options.steps.reduceRight<() => Promise<GraphqlResponse>>((next, step) => () => step(request, next), admit);
  const response = await chain();
  if (!admitted) return errorsOf(response.body);
  const { query } = request.body as { query?: unknown };
  // An id the trusted documents do not know, with no text: what Apollo answers an unknown persisted query.
  if (typeof query !== 'string' || query === '') return [new GraphQLError('PersistedQueryNotFound', { extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } })];
  return { request, query, client: options.stateOf?.(request) };
}

/** `documentId` beside the payload's standard fields (the GraphQL over HTTP spelling of a trusted document's id). */
function documentIdOf(payload: SubscribePayload): string | undefined {
  const { documentId } = payload as SubscribePayload & { documentId?: unknown };
  return typeof documentId === 'string' ? documentId : undefined;
}

/** A step's refusal (`errorBody`) as the errors of the subscription's error message. */
function errorsOf(text: string): GraphQLError[] {
  try {
    const { errors } = JSON.parse(text) as { errors?: Array<{ message?: unknown; extensions?: Record<string, unknown> }> };
    if (Array.isArray(errors) && errors.length > 0) return errors.map((e) => new GraphQLError(String(e.message), { extensions: e.extensions }));
  } catch {
    // not a step's refusal
  }
  return [new GraphQLError('The subscription was refused', { extensions: { code: 'BAD_REQUEST' } })];
}
