import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError, getVariableValues, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import type { ClientMetrics } from '../clients/clientMetrics';
import type { KnownClient } from '../pipeline/record';
import type { GatewayContext } from '../context';
import type { RequestRecord } from '../pipeline/record';
import { ErrorCode } from '../errors/codes';
import { upstreamCallCount } from '../upstreams/events';
import { actualCost, estimateCost, type CostEstimate, type ResolvedOperation } from './costEstimate';

/** The client cost policy: `admit` is judgeCost's step for a known client, `answered` the plugin's after the answer. */
export type ClientCostPolicy = ReturnType<typeof clientCostPolicy>;

export function clientCostPolicy(options: { metrics: ClientMetrics }) {
  return {
    /** The refusal of an operation over the client's `maxCost`, or of introspection its policy does not allow; else the estimate is counted. */
    admit(client: KnownClient, estimate: CostEstimate): GraphQLError | undefined {
      if (!client.policy.introspectionAllowed && estimate.introspection) {
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
      options.metrics.estimated(client.name, estimate.cost, estimate.upstreamCalls);
      return undefined;
    },
    /** The actual cost of what was answered, for the metrics. */
    answered(client: KnownClient, resolved: ResolvedOperation, data: Record<string, unknown> | null | undefined): void {
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
 * The one judgement of an estimate (Apollo's plugin, the compiled executor, live subscriptions): the gateway's limits,
 * then the known client's policy. An admitted estimate goes on the record and into the client's metrics.
 */
export function judgeCost(limits: CostLimits, policy: ClientCostPolicy | undefined, record: RequestRecord, estimate: CostEstimate): GraphQLError | undefined {
  const refused = (message: string) => new GraphQLError(message, { extensions: { code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 400 } } });
  if (estimate.upstreamCalls > limits.maxUpstreamCalls) {
    return refused(
      `This operation is too costly: it could make ${estimate.upstreamCalls} upstream calls, and the limit is ${limits.maxUpstreamCalls} (MAX_UPSTREAM_CALLS). Ask for fewer items per page or fewer aliases.`,
    );
  }
  if (estimate.cost > limits.maxCost) return refused(`Query Cost limit of ${limits.maxCost} exceeded, found ${estimate.cost} (MAX_COST).`);
  const state = record.client;
  const client = policy && state?.known;
  if (!state || !client) return undefined;
  const refusal = policy.admit(client, estimate);
  if (refusal) {
    state.refusedBy = refusal.extensions.code === ErrorCode.COST_ESTIMATED_TOO_EXPENSIVE ? 'cost' : 'introspection';
    return refusal;
  }
  record.cost = estimate;
  return undefined;
}

/**
 * Reserves an admitted estimate's upstream calls on the known client's budget before anything runs (once per
 * operation; the compiled executor's refusal is judged again by Apollo, which reserves then). The refusal is the
 * 429 `RATE_LIMITED` of a spent budget; the client step adds the RateLimit headers. Undefined, without a promise,
 * when there is nothing to reserve (no client budget, or no call).
 */
export function reserveUpstreamCalls(record: RequestRecord, estimate: CostEstimate): Promise<GraphQLError | undefined> | undefined {
  const state = record.client;
  const calls = estimate.upstreamCalls;
  if (!state?.reserveCalls || calls <= 0) return undefined;
  return state.reserveCalls(calls).then((reserved) => {
    if (reserved.allowed) {
      state.reservedCalls = (state.reservedCalls ?? 0) + calls;
      return undefined;
    }
    state.refusedBy = 'upstream_budget';
    return new GraphQLError(`The upstream-call budget of client ${state.name} is spent; retry after ${reserved.retryAfterSeconds} s`, {
      extensions: { code: ErrorCode.RATE_LIMITED, http: { status: 429, headers: new Map([['retry-after', String(reserved.retryAfterSeconds)]]) } },
    });
  });
}

/** The variables coerced by graphql-js once per operation and values (a batch's operations share one context). */
export function coerceVariables(context: GatewayContext, schema: GraphQLSchema, operation: OperationDefinitionNode, raw: Record<string, unknown> | undefined) {
  const kept = context.variables;
  if (kept?.operation === operation && kept.raw === raw) return kept.values;
  const values = getVariableValues(schema, operation.variableDefinitions ?? [], raw ?? {}, { maxErrors: 50 });
  context.variables = { operation, raw, values };
  return values;
}

/**
 * Demand control before anything executes (judgeCost); variables graphql-js refuses are left to the executor, which
 * answers with its errors. Afterwards it records the upstream calls made, which the client policy step charges.
 */
export function costLimitPlugin(limits: CostLimits, policy?: ClientCostPolicy): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart({ contextValue }) {
      const { record } = contextValue;
      const state = record.client;
      const client = policy && state?.known;
      return {
        async didResolveOperation({ operation, document, schema, request }) {
          // A result the compiled executor made was judged there.
          if (!operation || contextValue.compiledResult) return;
          const variables = coerceVariables(contextValue, schema, operation, request.variables);
          if (variables.errors) return;
          const estimate = estimateCost({ schema, document, operation, variables: variables.coerced });
          const refused = judgeCost(limits, policy, record, estimate) ?? (await reserveUpstreamCalls(record, estimate));
          if (refused) throw refused;
        },
        async willSendResponse({ response, document, operation, schema }) {
          if (!state || !client) return;
          // Every call the request made, retries included (joined and kept reads made no call).
          state.actualUpstreamCalls = upstreamCallCount(contextValue.upstreamCalls);
          // An incremental answer's actual cost is told once all its parts are out (src/execution/incrementalExecution.ts).
          if (!document || !operation || response.body.kind !== 'single' || response.http.headers.get('content-type')?.startsWith('multipart/mixed')) return;
          policy.answered(client, { schema, document, operation }, response.body.singleResult.data);
        },
      };
    },
  };
}
