import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { rootFieldNames } from '../graphqlDocument';
import type { ClientMetrics } from '../clients/clientMetrics';
import type { ClientRequestState } from '../clients/state';
import type { GatewayContext } from '../context';
import { ErrorCode } from '../errors/codes';
import { upstreamCallCount } from '../upstreams/events';
import { actualCost } from './actualCost';
import { estimateOnce, type CostEstimate } from './costEstimate';

interface ClientCostPolicyOptions {
  /** Where the estimates are counted per client. */
  metrics: ClientMetrics;
}

/** A resolved operation as the client cost policy judges it. */
export interface ResolvedOperation {
  schema: GraphQLSchema;
  document: DocumentNode;
  operation: OperationDefinitionNode;
}

/**
 * The client cost policy, for Apollo's plugin below and for operations run without Apollo (src/execution/compiledPath.ts):
 * each step is what the plugin does at one hook, so both paths judge, count and log alike.
 */
export interface ClientCostPolicy {
  /** The refusal of an operation over the client's `maxCost`, or introspection the client may not ask; nothing is recorded. */
  refusal(state: ClientRequestState, resolved: ResolvedOperation, estimate: CostEstimate): GraphQLError | undefined;
  /** An admitted operation: its estimate on the log line and in the metrics. */
  admitted(state: ClientRequestState, estimate: CostEstimate): void;
  /** The upstream calls the request made (every call, retries included; not joined or kept reads), which the client policy step charges. */
  recordCalls(state: ClientRequestState, calls: number): void;
  /** The actual cost of what was answered, for the metrics. */
  answered(state: ClientRequestState, resolved: ResolvedOperation, data: Record<string, unknown> | null | undefined): void;
}

export function clientCostPolicy(options: ClientCostPolicyOptions): ClientCostPolicy {
  return {
    refusal(state, { document, operation }, estimate) {
      const { client } = state;
      if (!client.policy.introspectionAllowed && asksIntrospection(operation, document)) {
        return new GraphQLError(`Introspection is not allowed for client ${client.name}`, {
          extensions: { code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 400 } },
        });
      }
      if (estimate.cost > client.policy.maxCost) {
        return new GraphQLError(
          `This operation's estimated cost is ${estimate.cost}, over the maximum of ${client.policy.maxCost} for client ${client.name}. Ask for fewer items per page, fewer fields or fewer aliases.`,
          { extensions: { code: ErrorCode.COST_ESTIMATED_TOO_EXPENSIVE, cost: { estimated: estimate.cost, maximum: client.policy.maxCost }, http: { status: 400 } } },
        );
      }
      return undefined;
    },
    admitted(state, estimate) {
      state.logFields.estimatedCost = String(estimate.cost);
      state.logFields.estimatedUpstreamCalls = String(estimate.upstreamCalls);
      options.metrics.estimated(state.client.name, estimate.cost, estimate.upstreamCalls);
    },
    recordCalls(state, calls) {
      state.actualUpstreamCalls = calls;
      state.logFields.actualUpstreamCalls = String(calls);
    },
    answered(state, resolved, data) {
      options.metrics.actual(state.client.name, actualCost({ ...resolved, data }));
    },
  };
}

/**
 * Demand control per client, after the operation is resolved and before anything executes: an operation whose
 * estimated cost (the schema's cost directives) is over the client's `maxCost` is refused with
 * COST_ESTIMATED_TOO_EXPENSIVE and `extensions.cost`, and introspection is refused to clients whose policy does not
 * allow it. Afterwards it records the upstream calls the request made, which the client policy step charges to the
 * client's per-minute budget. Requests without a client (no clients file) pass untouched.
 */
export function clientCostLimitPlugin(policy: ClientCostPolicy): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart({ contextValue }) {
      const state = contextValue.client;
      if (!state) return;
      const record = () => policy.recordCalls(state, upstreamCallCount(contextValue.upstreamCalls));
      return {
        async didResolveOperation({ operation, document, schema, request }) {
          if (!operation) return;
          const estimate = estimateOnce(request, { schema, document, operation, variables: request.variables ?? {} });
          const refused = policy.refusal(state, { schema, document, operation }, estimate);
          if (refused) {
            state.refusedBy = refused.extensions.code === ErrorCode.COST_ESTIMATED_TOO_EXPENSIVE ? 'cost' : 'introspection';
            throw refused;
          }
          policy.admitted(state, estimate);
        },
        // Every call the request made, retries included: what the upstreams actually served (joined and kept reads
        // made no call). Recorded as execution
        // ends, before the request's log line is written (willSendResponse of the log plugin).
        async executionDidStart() {
          return { executionDidEnd: async () => record() };
        },
        async willSendResponse({ response, document, operation, schema }) {
          record();
          if (!document || !operation || response.body.kind !== 'single') return;
          // For the metrics only: the request's log line is written before this (the log plugin comes first).
          policy.answered(state, { schema, document, operation }, response.body.singleResult.data);
        },
      };
    },
  };
}

/** Whether the operation's root selection (through fragments) asks `__schema` or `__type`; walked once per operation. */
const introspecting = new WeakMap<OperationDefinitionNode, boolean>();

function asksIntrospection(operation: OperationDefinitionNode, document: DocumentNode): boolean {
  let asks = introspecting.get(operation);
  if (asks === undefined) {
    const names = rootFieldNames(document, operation);
    asks = names.has('__schema') || names.has('__type');
    introspecting.set(operation, asks);
  }
  return asks;
}
