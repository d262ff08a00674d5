import { credentialSpellingConflict } from '../credentials';
import { ErrorCode } from '../errors/codes';
import { GraphQLError } from 'graphql';
import type { SubscribePayload } from 'graphql-ws';
import type { GraphqlRequest, GraphqlResponse, GraphqlStep } from '../http/graphqlRoute';
import { operationsOfBody, type OperationRequest } from '../http/operationRequests';
import { createRequestRecord } from '../http/requestRecord';

/**
 * The headers of a WebSocket's requests: the string properties of its `connection_init` payload, by lower-cased
 * name (browsers cannot set headers on a WebSocket; CONTRACT.md, "Live subscriptions").
 */
export function headersOf(payload: Readonly<Record<string, unknown>> | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(payload ?? {})) if (typeof value === 'string') headers[name.toLowerCase()] = value;
  return headers;
}

/**
 * A subscription admitted by the HTTP layer's policies: its request (with its record: the client, how the document
 * was named), its operation as the steps left it, and the document text to run.
 */
export interface LiveScope {
  readonly request: GraphqlRequest;
  readonly operation: OperationRequest;
  /** The document to run: the manifest body when the subscription named a trusted document by id. */
  readonly query: string;
}

export interface LiveScopeOptions {
  /** The HTTP route's policies that decide on the caller and the document (client identity and budgets, trusted documents). */
  steps: readonly GraphqlStep[];
}

/**
 * Runs one subscribe message through the same policies as an HTTP request with the connection's headers, as a POST
 * of the same body read by the route's reader: it is admitted, or refused with the errors an HTTP client would read.
 */
export async function liveScope(options: LiveScopeOptions, headers: Readonly<Record<string, string>>, payload: SubscribePayload): Promise<LiveScope | readonly GraphQLError[]> {
  // graphql-ws requires a string query: a document named by id comes with an empty one.
  const { query, ...rest } = payload;
  const read = operationsOfBody(query === '' ? rest : payload);
  const [operation] = read.operations;
  // One credential header under both spellings with different values: refused as over HTTP.
  const conflict = credentialSpellingConflict((name) => headers[name]);
  if (conflict !== undefined) return [new GraphQLError(conflict, { extensions: { code: ErrorCode.BAD_USER_INPUT } })];
  if (!operation?.wellFormed) return [new GraphQLError('The subscribe message is not a GraphQL request', { extensions: { code: 'BAD_REQUEST' } })];
  const request: GraphqlRequest = {
    method: 'POST',
    url: new URL('http://gateway.invalid/graphql'),
    header: (name) => headers[name],
    incomingHeaders: headers,
    read,
    record: createRequestRecord(headers['x-request-id']),
    // The steps decide on the caller and the document; each poll read builds its own context.
    context: () => Promise.reject(new Error('live: the admission steps execute nothing')),
  };
  let admitted = false;
  const admit = (): Promise<GraphqlResponse> => {
    admitted = true;
    return Promise.resolve({ status: 200, headers: new Map(), body: '' });
  };
  const chain = options.steps.reduceRight<() => Promise<GraphqlResponse>>((next, step) => () => step(request, next), admit);
  const response = await chain();
  if (!admitted) return errorsOf(response.body);
  // An id the trusted documents do not know, with no text: what Apollo answers an unknown persisted query.
  if (operation.query === undefined || operation.query === '') return [new GraphQLError('PersistedQueryNotFound', { extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } })];
  return { request, operation, query: operation.query };
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
