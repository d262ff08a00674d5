import type { ApolloServerPlugin } from '@apollo/server';
import type { GatewayContext } from '../context';
import type { Logger } from '../logger';
import type { UpstreamCallRecord } from '../upstreams/http';
import { operationOutcome, type OperationOutcome } from '../observability/operationOutcome';

/** The fields of the one `graphql request` log line every GraphQL request gets, however it ended. */
export interface RequestLogFields {
  operationName: string | null;
  durationMs: number;
  outcome: OperationOutcome;
  errorCodes: string[];
  upstreamCalls: UpstreamCallRecord[];
  /** Only for requests answered before Apollo's plugins saw them: the status the gateway wrote. */
  httpStatus?: number;
  /** What the HTTP-layer policies add (e.g. the client's name, what idempotency did); never a secret. */
  extra?: Readonly<Record<string, string>>;
}

/** Writes the request's log line: one builder for the plugin and for refusals made before Apollo. */
export function logRequest(logger: Logger, fields: RequestLogFields): void {
  logger.info(
    {
      ...fields.extra,
      operationName: fields.operationName,
      durationMs: roundMs(fields.durationMs),
      outcome: fields.outcome,
      errorCodes: fields.errorCodes,
      ...(fields.httpStatus === undefined ? {} : { httpStatus: fields.httpStatus }),
      upstreamCalls: fields.upstreamCalls.map(callSummary),
    },
    'graphql request',
  );
}

/** One log line per GraphQL request: id, operation, duration, outcome, error codes and the upstream calls made. */
export function requestLogPlugin(): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart({ contextValue }) {
      const started = performance.now();
      return {
        async willSendResponse(requestContext) {
          const { outcome, errorCodes } = operationOutcome(requestContext);
          logRequest(contextValue.logger, {
            operationName: requestContext.operationName ?? null,
            durationMs: performance.now() - started,
            outcome,
            errorCodes,
            upstreamCalls: contextValue.upstreamCalls,
            extra: contextValue.logFields,
          });
        },
      };
    },
  };
}

/**
 * What the log keeps of an upstream read: where, how it ended, how long, and its source (`upstream`, `joined`,
 * `cache`); never headers or bodies.
 */
export function callSummary(call: UpstreamCallRecord): { service: string; method: string; route: string; status: number | null; failure?: string; durationMs: number; source: string } {
  return {
    service: call.service,
    method: call.method,
    route: call.route,
    status: call.status ?? null,
    ...(call.error ? { failure: call.error.failure } : {}),
    durationMs: roundMs(call.durationMs),
    source: call.source,
  };
}

function roundMs(ms: number): number {
  return Math.round(ms * 10) / 10;
}
