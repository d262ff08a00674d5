import type { ApolloServerPlugin } from '@apollo/server';
import type { GatewayContext } from '../../context';
import { operationOutcome } from '../operationOutcome';

/**
 * Records how each operation Apollo runs ended in the request's record (the route writes the log line, the metrics
 * and the span from it, src/http/graphqlRoute.ts): name, type, outcome, error codes, duration.
 */
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
