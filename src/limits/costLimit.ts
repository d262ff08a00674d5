import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { rootFieldNames } from '../graphqlDocument';
import type { ClientMetrics } from '../clients/clientMetrics';
import type { KnownClient } from '../clients/clientsFile';
import type { GatewayContext } from '../context';
import type { ClientRecord, RequestRecord } from '../http/requestRecord';
import { ErrorCode } from '../errors/codes';
import { upstreamCallCount } from '../upstreams/events';
import { actualCost } from './actualCost';
import { estimateRemembered, type CostEstimate } from './costEstimate';

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
  refusal(client: KnownClient, resolved: ResolvedOperation, estimate: CostEstimate): GraphQLError | undefined;
  /** An admitted operation: its estimate in the metrics (the route puts the record's `cost` on the log line). */
  admitted(client: KnownClient, estimate: CostEstimate): void;
  /** The actual cost of what was answered, for the metrics. */
  answered(client: KnownClient, resolved: ResolvedOperation, data: Record<string, unknown> | null | undefined): void;
}

export function clientCostPolicy(options: ClientCostPolicyOptions): ClientCostPolicy {
  return {
    refusal(client, { document, operation }, estimate) {
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
    admitted(client, estimate) {
      options.metrics.estimated(client.name, estimate.cost, estimate.upstreamCalls);
    },
    answered(client, resolved, data) {
      options.metrics.actual(client.name, actualCost({ ...resolved, data }));
    },
  };
}

/** The gateway's limits on an operation's estimate, in the one unit of the schema's cost directives. */
export interface CostLimits {
  /** Most upstream calls one operation may cause (MAX_UPSTREAM_CALLS). */
  maxUpstreamCalls: number;
  /** Largest estimated cost of one operation (MAX_COST). */
  maxCost: number;
}

/**
 * The refusal of an operation whose estimate (src/limits/costEstimate.ts) is over MAX_UPSTREAM_CALLS or MAX_COST.
 * Every field with `@cost` is one upstream call per resolution, and `@listSize(slicingArguments: ["perPage"])`
 * multiplies what is selected below a page, so the fan-out of a page of reservations, each loading its POS check,
 * is counted, with aliases and fragments.
 */
export function limitRefusal(limits: CostLimits, estimate: CostEstimate): GraphQLError | undefined {
  const refused = (message: string) => new GraphQLError(message, { extensions: { code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 400 } } });
  if (estimate.upstreamCalls > limits.maxUpstreamCalls) {
    return refused(
      `This operation is too costly: it could make ${estimate.upstreamCalls} upstream calls, and the limit is ${limits.maxUpstreamCalls} (MAX_UPSTREAM_CALLS). Ask for fewer items per page or fewer aliases.`,
    );
  }
  if (estimate.cost > limits.maxCost) return refused(`Query Cost limit of ${limits.maxCost} exceeded, found ${estimate.cost} (MAX_COST).`);
  return undefined;
}

/**
 * The one judgement of an operation's estimate, for Apollo's plugin below and for live subscriptions (src/live): the
 * gateway's limits, then the known client's policy. A refusal is returned (the client's noted on the record for its
 * metrics); an admitted estimate goes on the record and into the client's metrics.
 */
export function judgeCost(limits: CostLimits, policy: ClientCostPolicy | undefined, record: RequestRecord, resolved: ResolvedOperation, estimate: CostEstimate): GraphQLError | undefined {
  const over = limitRefusal(limits, estimate);
  if (over) return over;
  const state = record.client;
  const client = policy && state?.known;
  if (!state || !client) return undefined;
  const refused = policy.refusal(client, resolved, estimate);
  if (refused) {
    state.refusedBy = refused.extensions.code === ErrorCode.COST_ESTIMATED_TOO_EXPENSIVE ? 'cost' : 'introspection';
    return refused;
  }
  record.cost = estimate;
  policy.admitted(client, estimate);
  return undefined;
}

/**
 * Demand control, after the operation is resolved and before anything executes, from one estimate: the gateway's
 * limits (MAX_UPSTREAM_CALLS, MAX_COST), then, for a known client, its `maxCost` (COST_ESTIMATED_TOO_EXPENSIVE with
 * `extensions.cost`) and introspection when its policy does not allow it. Afterwards it records the upstream calls
 * the request made, which the client policy step charges to the client's per-minute budget.
 */
export function costLimitPlugin(limits: CostLimits, policy?: ClientCostPolicy): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart({ contextValue }) {
      const { record } = contextValue;
      const state = record.client;
      const client = policy && state?.known;
      return {
        async didResolveOperation({ operation, document, schema, request }) {
          if (!operation) return;
          const estimate = estimateRemembered({ schema, document, operation, variables: request.variables ?? {} });
          const refused = judgeCost(limits, policy, record, { schema, document, operation }, estimate);
          if (refused) throw refused;
        },
        async willSendResponse({ response, document, operation, schema }) {
          if (!state || !client) return;
          // Every call the request made, retries included: what the upstreams actually served (joined and kept reads
          // made no call).
          recordCalls(state, upstreamCallCount(contextValue.upstreamCalls));
          if (!document || !operation || response.body.kind !== 'single') return;
          policy.answered(client, { schema, document, operation }, response.body.singleResult.data);
        },
      };
    },
  };
}

/** The upstream calls the request made (every call, retries included; not joined or kept reads), which the client policy step charges. */
export function recordCalls(client: ClientRecord, calls: number): void {
  client.actualUpstreamCalls = calls;
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
