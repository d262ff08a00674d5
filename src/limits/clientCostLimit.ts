import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError, type DocumentNode, type OperationDefinitionNode } from 'graphql';
import { rootFieldNames } from '../graphqlDocument';
import type { ClientMetrics } from '../clients/clientMetrics';
import type { GatewayContext } from '../context';
import { ErrorCode } from '../errors/codes';
import { actualCost } from './actualCost';
import { estimateOnce } from './costEstimate';

export interface ClientCostLimitPluginOptions {
  /** Where the estimates are counted per client. */
  metrics: ClientMetrics;
}

/**
 * Demand control per client, after the operation is resolved and before anything executes: an operation whose
 * estimated cost (the schema's cost directives) is over the client's `maxCost` is refused with
 * COST_ESTIMATED_TOO_EXPENSIVE and `extensions.cost`, and introspection is refused to clients whose policy does not
 * allow it. Afterwards it records the upstream calls the request made, which the client policy step charges to the
 * client's per-minute budget. Requests without a client (no clients file) pass untouched.
 */
export function clientCostLimitPlugin(options: ClientCostLimitPluginOptions): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart({ contextValue }) {
      const state = contextValue.client;
      if (!state) return;
      const { client } = state;
      const record = () => {
        state.actualUpstreamCalls = contextValue.upstreamCalls.length;
        state.logFields.actualUpstreamCalls = String(contextValue.upstreamCalls.length);
      };
      return {
        async didResolveOperation({ operation, document, schema, request }) {
          if (!operation) return;
          if (!client.policy.introspectionAllowed && asksIntrospection(operation, document)) {
            state.refusedBy = 'introspection';
            throw new GraphQLError(`Introspection is not allowed for client ${client.name}`, {
              extensions: { code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 400 } },
            });
          }
          const estimate = estimateOnce(request, { schema, document, operation, variables: request.variables ?? {} });
          state.logFields.estimatedCost = String(estimate.cost);
          state.logFields.estimatedUpstreamCalls = String(estimate.upstreamCalls);
          options.metrics.estimated(client.name, estimate.cost, estimate.upstreamCalls);
          if (estimate.cost > client.policy.maxCost) {
            state.refusedBy = 'cost';
            throw new GraphQLError(
              `This operation's estimated cost is ${estimate.cost}, over the maximum of ${client.policy.maxCost} for client ${client.name}. Ask for fewer items per page, fewer fields or fewer aliases.`,
              { extensions: { code: ErrorCode.COST_ESTIMATED_TOO_EXPENSIVE, cost: { estimated: estimate.cost, maximum: client.policy.maxCost }, http: { status: 400 } } },
            );
          }
        },
        // Every call the request made, retries included: what the upstreams actually served. Recorded as execution
        // ends, before the request's log line is written (willSendResponse of the log plugin).
        async executionDidStart() {
          return { executionDidEnd: async () => record() };
        },
        async willSendResponse({ response, document, operation, schema }) {
          record();
          if (!document || !operation || response.body.kind !== 'single') return;
          // For the metrics only: the request's log line is written before this (the log plugin comes first).
          options.metrics.actual(client.name, actualCost({ schema, document, operation, data: response.body.singleResult.data }));
        },
      };
    },
  };
}

/** Whether the operation's root selection (through fragments) asks `__schema` or `__type`. */
function asksIntrospection(operation: OperationDefinitionNode, document: DocumentNode): boolean {
  const names = rootFieldNames(document, operation);
  return names.has('__schema') || names.has('__type');
}
