import type { ApolloServerPlugin } from '@apollo/server';
import { SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import type { GatewayContext } from '../../context';
import { operationOutcome, type OperationOutcome } from '../operationOutcome';

/** Attribute names of the OpenTelemetry GraphQL conventions (still "incubating", so copied here as the project advises). */
const ATTR_GRAPHQL_OPERATION_NAME = 'graphql.operation.name';
const ATTR_GRAPHQL_OPERATION_TYPE = 'graphql.operation.type';

/** The request's span, when tracing records one (none when tracing is off). */
export function recordingOperationSpan(): Span | undefined {
  const span = trace.getActiveSpan();
  return span?.isRecording() ? span : undefined;
}

/** Names the span after its operation (`query Day`) once the operation is known. */
export function nameOperationSpan(span: Span, type: string, operationName: string | null | undefined, batched: boolean): void {
  // A batch shares one HTTP request and so one span; naming it after one of its operations would mislead.
  span.updateName(batched ? 'graphql batch' : [type, operationName].filter(Boolean).join(' '));
  span.setAttribute(ATTR_GRAPHQL_OPERATION_TYPE, type);
  if (operationName) span.setAttribute(ATTR_GRAPHQL_OPERATION_NAME, operationName);
}

/** Records how the operation ended on its span. */
export function endOperationSpan(span: Span, outcome: OperationOutcome, errorCodes: readonly string[]): void {
  span.setAttribute('tablegraph.outcome', outcome);
  if (errorCodes.length > 0) span.setAttribute('tablegraph.error_codes', [...errorCodes]);
  if (outcome === 'error') span.setStatus({ code: SpanStatusCode.ERROR, message: errorCodes.join(', ') });
}

/**
 * Names the request's span after its operation (`query Day`) and records how it ended. The span itself is started
 * around the whole request by `withOperationSpan` (src/http/graphqlRoute.ts), so that the resolvers' upstream calls
 * become its children; this plugin only learns what the span is about. Without tracing there is no recording span and
 * the plugin does nothing. Operations run without Apollo do the same (src/execution/compiledPath.ts).
 */
export function tracingPlugin(): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart({ requestIsBatched }) {
      const span = recordingOperationSpan();
      if (!span) return;
      return {
        async didResolveOperation({ operation, operationName }) {
          nameOperationSpan(span, operation?.operation ?? 'query', operationName, requestIsBatched);
        },
        async willSendResponse(requestContext) {
          const { outcome, errorCodes } = operationOutcome(requestContext);
          endOperationSpan(span, outcome, errorCodes);
        },
      };
    },
  };
}
