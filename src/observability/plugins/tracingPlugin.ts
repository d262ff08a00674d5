import type { ApolloServerPlugin } from '@apollo/server';
import { SpanStatusCode, trace } from '@opentelemetry/api';
import type { GatewayContext } from '../../context';
import { operationOutcome } from '../operationOutcome';

/** Attribute names of the OpenTelemetry GraphQL conventions (still "incubating", so copied here as the project advises). */
const ATTR_GRAPHQL_OPERATION_NAME = 'graphql.operation.name';
const ATTR_GRAPHQL_OPERATION_TYPE = 'graphql.operation.type';

/**
 * Names the request's span after its operation (`query Day`) and records how it ended. The span itself is started
 * around the whole request by `withOperationSpan` (src/http/graphqlRoute.ts), so that the resolvers' upstream calls
 * become its children; this plugin only learns what the span is about. Without tracing there is no recording span and
 * the plugin does nothing.
 */
export function tracingPlugin(): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart({ requestIsBatched }) {
      const span = trace.getActiveSpan();
      if (!span?.isRecording()) return;
      return {
        async didResolveOperation({ operation, operationName }) {
          const type = operation?.operation ?? 'query';
          // A batch shares one HTTP request and so one span; naming it after one of its operations would mislead.
          span.updateName(requestIsBatched ? 'graphql batch' : [type, operationName].filter(Boolean).join(' '));
          span.setAttribute(ATTR_GRAPHQL_OPERATION_TYPE, type);
          if (operationName) span.setAttribute(ATTR_GRAPHQL_OPERATION_NAME, operationName);
        },
        async willSendResponse(requestContext) {
          const { outcome, errorCodes } = operationOutcome(requestContext);
          span.setAttribute('tablegraph.outcome', outcome);
          if (errorCodes.length > 0) span.setAttribute('tablegraph.error_codes', errorCodes);
          if (outcome === 'error') span.setStatus({ code: SpanStatusCode.ERROR, message: errorCodes.join(', ') });
        },
      };
    },
  };
}
