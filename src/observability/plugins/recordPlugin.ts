import type { ApolloServerPlugin, GraphQLRequestContextWillSendResponse } from '@apollo/server';
import type { GatewayContext } from '../../context';
import type { OperationOutcome } from '../metrics';

/** Records how each operation Apollo runs ended in the request's record, which the route writes out once. */
export function recordPlugin(): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart({ contextValue }) {
      const started = performance.now();
      let type: string | undefined;
      return {
        async didResolveOperation({ operation }) {
          type = operation?.operation ?? 'query';
        },
        async willSendResponse(requestContext) {
          const { outcome, errorCodes } = operationOutcome(requestContext);
          const operationName = requestContext.operationName ?? null;
          contextValue.record.operations.push({ operationName, type, outcome, errorCodes, durationMs: performance.now() - started });
        },
      };
    },
  };
}

/** The outcome and the distinct `extensions.code`s of a response. */
function operationOutcome({ response, errors }: GraphQLRequestContextWillSendResponse<GatewayContext>): { outcome: OperationOutcome; errorCodes: string[] } {
  const body = response.body.kind === 'single' ? response.body.singleResult : undefined;
  const reported = body?.errors ?? errors ?? [];
  const codes = new Set<string>();
  for (const e of reported) {
    if (typeof e.extensions?.code === 'string') codes.add(e.extensions.code);
  }
  // Partial only when some root field has data: `{ check: null }` with its error is a failed operation.
  const data = body?.data;
  const hasData = typeof data === 'object' && data !== null && Object.values(data).some((value) => value !== null);
  return { outcome: reported.length === 0 ? 'success' : hasData ? 'partial' : 'error', errorCodes: [...codes] };
}
