import type { ApolloServerPlugin } from '@apollo/server';
import type { GatewayContext } from '../context';
import type { UpstreamCallRecord } from '../upstreams/http';
import { operationOutcome } from './operationOutcome';

/** One log line per GraphQL request: id, operation, duration, outcome, error codes and the upstream calls made. */
export function requestLogPlugin(): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart({ contextValue }) {
      const started = performance.now();
      return {
        async willSendResponse(requestContext) {
          const { outcome, errorCodes } = operationOutcome(requestContext);
          contextValue.logger.info(
            {
              operationName: requestContext.operationName ?? null,
              durationMs: roundMs(performance.now() - started),
              outcome,
              errorCodes,
              upstreamCalls: contextValue.upstreamCalls.map(callSummary),
            },
            'graphql request',
          );
        },
      };
    },
  };
}

/** What the log keeps of an upstream call: where, how it ended, how long; never headers or bodies. */
export function callSummary(call: UpstreamCallRecord): { service: string; method: string; route: string; status: number | null; failure?: string; durationMs: number } {
  return {
    service: call.service,
    method: call.method,
    route: call.route,
    status: call.status ?? null,
    ...(call.error ? { failure: call.error.failure } : {}),
    durationMs: roundMs(call.durationMs),
  };
}

function roundMs(ms: number): number {
  return Math.round(ms * 10) / 10;
}
