import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError } from 'graphql';
import { estimateOnce } from './costEstimate';

export interface UpstreamCallLimitPluginOptions {
  /** Most upstream calls one operation may cause (MAX_UPSTREAM_CALLS). */
  maxCalls: number;
}

/**
 * Refuses, before execution, an operation that could cause more than `maxCalls` upstream calls. The count comes
 * from the schema's cost directives (src/limits/costEstimate.ts): every field with `@cost` is one call per
 * resolution, and `@listSize(slicingArguments: ["perPage"])` multiplies what is selected below a page, so the
 * fan-out of a page of reservations, each loading its POS check, is counted, with aliases and fragments.
 */
export function upstreamCallLimitPlugin(options: UpstreamCallLimitPluginOptions): ApolloServerPlugin {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation, document, schema, request }) {
          if (!operation) return;
          const { upstreamCalls: calls } = estimateOnce(request, { schema, document, operation, variables: request.variables ?? {} });
          if (calls > options.maxCalls) {
            throw new GraphQLError(
              `This operation is too costly: it could make ${calls} upstream calls, and the limit is ${options.maxCalls} (MAX_UPSTREAM_CALLS). Ask for fewer items per page or fewer aliases.`,
              { extensions: { code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 400 } } },
            );
          }
        },
      };
    },
  };
}
