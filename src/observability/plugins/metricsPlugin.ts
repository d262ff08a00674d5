import type { ApolloServerPlugin } from '@apollo/server';
import type { GatewayContext } from '../../context';
import type { GatewayMetrics } from '../metrics';
import { operationOutcome } from '../operationOutcome';

/** Counts each GraphQL operation by name and outcome, and observes its duration. */
export function metricsPlugin(metrics: GatewayMetrics): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart() {
      const started = performance.now();
      return {
        async willSendResponse(requestContext) {
          const { outcome } = operationOutcome(requestContext);
          metrics.observeOperation(requestContext.operationName, outcome, (performance.now() - started) / 1000);
        },
      };
    },
  };
}
