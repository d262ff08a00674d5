import type { ApolloServerPlugin } from '@apollo/server';
import Negotiator from 'negotiator';

/** The request errors the GraphQL-over-HTTP spec means: the document or its variables, refused before execution. */
const REQUEST_ERROR_CODES: ReadonlySet<unknown> = new Set(['GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'BAD_USER_INPUT']);

/**
 * A refused request under `accept: application/json` alone gets 200, as the GraphQL-over-HTTP spec prefers for that
 * legacy media type; otherwise Apollo's 400 stays (CONTRACT.md, "HTTP status of refusals"). Only parse, validation
 * and variable-coercion refusals without data change.
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
  const named = new Negotiator({ headers: { accept } }).mediaTypes().map((type) => type.toLowerCase());
  return named.includes('application/json') && !named.includes('application/graphql-response+json');
}
