import type { ApolloServerPlugin } from '@apollo/server';

/** The request errors the GraphQL-over-HTTP spec means: the document or its variables, refused before execution. */
const REQUEST_ERROR_CODES: ReadonlySet<unknown> = new Set(['GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'BAD_USER_INPUT']);

/**
 * The status of a refused request under `accept: application/json` alone: 200, as the GraphQL-over-HTTP spec
 * prefers for that legacy media type (its clients read the body, not the status). Under
 * `application/graphql-response+json`, without an accept header or with `*` only, Apollo's 400 stays: CONTRACT.md,
 * "HTTP status of refusals". Only parse, validation and variable-coercion refusals without data change; every other
 * status (the limits with codes of their own, 429, 5xx) is left alone.
 */
export function refusalStatusPlugin(): ApolloServerPlugin {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ request, response }) {
          if (response.body.kind !== 'single' || response.http.status !== 400) return;
          const { data, errors } = response.body.singleResult;
          if (data !== undefined || !errors || errors.length === 0) return;
          if (!errors.every((e) => REQUEST_ERROR_CODES.has(e.extensions?.code))) return;
          if (acceptsJsonOnly(request.http?.headers.get('accept'))) response.http.status = 200;
        },
      };
    },
  };
}

/** Whether the client named application/json and not application/graphql-response+json (q=0 names nothing). */
export function acceptsJsonOnly(accept: string | undefined): boolean {
  if (!accept) return false;
  const named = new Set<string>();
  for (const range of accept.split(',')) {
    const [type, ...params] = range.split(';').map((p) => p.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    if (type && !(q && Number(q.slice(2)) === 0)) named.add(type);
  }
  return named.has('application/json') && !named.has('application/graphql-response+json');
}
