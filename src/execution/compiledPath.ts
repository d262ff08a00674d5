import { GraphQLError, getVariableValues, type GraphQLFormattedError } from 'graphql';
import type { ClientRequestState } from '../clients/state';
import type { GatewayContext } from '../context';
import type { GraphqlRequest, GraphqlResponse } from '../http/graphqlRoute';
import { logRequest } from '../http/requestLogPlugin';
import type { ClientCostPolicy } from '../limits/clientCostLimit';
import { estimateRemembered, type CostEstimate } from '../limits/costEstimate';
import type { GatewayMetrics } from '../observability/metrics';
import { outcomeOfResult } from '../observability/operationOutcome';
import { endOperationSpan, nameOperationSpan, recordingOperationSpan } from '../observability/plugins/tracingPlugin';
import { isPlainObject } from '../upstreams/fieldPlan';
import { upstreamCallCount } from '../upstreams/events';
import { responseContentType } from './accept';
import type { CompiledOperations } from './compiledOperations';
import { asGraphQLError } from './jitExecution';

interface CompiledPathOptions {
  operations: CompiledOperations;
  /** MAX_UPSTREAM_CALLS, as the upstream-call limit plugin applies it. */
  maxUpstreamCalls: number;
  /** Apollo's `formatError` (src/errors/formatError.ts). */
  formatError: (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError;
  metrics: GatewayMetrics;
  /** The per-request context, as Apollo's requests get it. */
  context(request: GraphqlRequest): Promise<GatewayContext>;
  /** The client policies' state and cost policy, when a clients file is loaded. */
  clients?: { stateOf(request: GraphqlRequest): ClientRequestState | undefined; cost: ClientCostPolicy };
}

/**
 * A compiled operation's request without Apollo Server (issue 14): for a POST of one query whose exact text was
 * compiled (a trusted document, or a text Apollo validated and compiled after repeated use), the parse, validation,
 * document limits and compilation are done already, so only what depends on the request is left: the variables,
 * the upstream-call limit and the client's cost policy, the context, the execution, and what Apollo's plugins do
 * with the result (error formatting, the log line, the metrics, the span, the client's cost records).
 *
 * Anything this path does not answer exactly as Apollo would (a refusal of any kind, a batch, a GET, an APQ
 * extension, an accept header without a JSON type) gives `undefined` before any work with an effect, and the route
 * hands the request to Apollo, which answers it as it always has.
 */
export function compiledPath(options: CompiledPathOptions): (request: GraphqlRequest) => Promise<GraphqlResponse> | undefined {
  const { operations, maxUpstreamCalls, formatError, metrics, clients } = options;

  return (request) => {
    if (request.method !== 'POST' || !isPlainObject(request.body)) return undefined;
    const { query, operationName, variables, extensions } = request.body;
    if (typeof query !== 'string') return undefined;
    if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') return undefined;
    if (variables !== undefined && variables !== null && !isPlainObject(variables)) return undefined;
    if (extensions !== undefined && extensions !== null && !(isPlainObject(extensions) && Object.keys(extensions).length === 0)) return undefined;
    const compiled = operations.find(query, operationName);
    if (!compiled) return undefined;
    const contentType = responseContentType(request.header('accept'));
    if (!contentType) return undefined;
    const values = variables ?? {};
    const { schema, document, operation } = compiled;
    const state = clients?.stateOf(request);
    let estimate: CostEstimate;
    try {
      const definitions = operation.variableDefinitions ?? [];
      // Variables graphql-js refuses are Apollo's to word (BAD_USER_INPUT naming the field, HTTP 400).
      if (definitions.length > 0 && getVariableValues(schema, definitions, values, { maxErrors: 1 }).errors) return undefined;
      estimate = estimateRemembered({ schema, document, operation, variables: values });
      if (estimate.upstreamCalls > maxUpstreamCalls) return undefined;
      if (state && clients?.cost.refusal(state, compiled, estimate)) return undefined;
    } catch {
      return undefined; // whatever the checks cannot judge, Apollo answers as it always has
    }

    return (async () => {
      const context = await options.context(request);
      // Timed from here, as Apollo's plugins time from requestDidStart (after the context).
      const started = performance.now();
      const span = recordingOperationSpan();
      if (span) nameOperationSpan(span, operation.operation, compiled.name, false);
      if (state) clients?.cost.admitted(state, estimate);
      const result = await compiled.query.query(undefined, context, values);
      if (state) clients?.cost.recordCalls(state, upstreamCallCount(context.upstreamCalls));
      const { data } = result;
      const formatted = result.errors ? formatErrors(result.errors.map(asGraphQLError), formatError) : undefined;
      // As Apollo writes it: `JSON.stringify(result)`, where an absent `errors` is left out.
      const body = `${JSON.stringify({ errors: formatted?.errors, data })}\n`;

      // What Apollo's plugins do as the response is sent, in their order: the log line, the metrics, the span, the client.
      const { outcome, errorCodes } = outcomeOfResult({ data, errors: formatted?.errors });
      const durationMs = performance.now() - started;
      const { upstreamCalls } = context;
      request.logFields.execution = 'compiled';
      logRequest(context.logger, { operationName: compiled.name, durationMs, outcome, errorCodes, upstreamCalls, extra: request.logFields });
      metrics.observeOperation(compiled.name, outcome, durationMs / 1000);
      if (span) endOperationSpan(span, outcome, errorCodes);
      // The calls were recorded as execution ended (above), before the log line, as the plugin records them.
      if (state) clients?.cost.answered(state, compiled, data);
      const headers = new Map<string, string>(formatted?.headers ?? []);
      if (!headers.has('content-type')) headers.set('content-type', contentType);
      return { status: formatted?.status ?? 200, headers, body, reachedPlugins: true };
    })();
  };
}

interface FormattedErrors {
  errors: GraphQLFormattedError[];
  status?: number;
  headers: Array<[string, string]>;
}

/**
 * Execution errors as Apollo Server formats them (its `normalizeAndFormatErrors`): a code on every error
 * (INTERNAL_SERVER_ERROR when none), `extensions.http` taken off into the response's status and headers, then our
 * `formatError`; an error that fails formatting becomes a masked internal error.
 */
function formatErrors(errors: readonly GraphQLError[], formatError: CompiledPathOptions['formatError']): FormattedErrors {
  const out: FormattedErrors = { errors: [], headers: [] };
  for (const error of errors) {
    const extensions: Record<string, unknown> = { ...error.extensions, code: error.extensions.code ?? 'INTERNAL_SERVER_ERROR' };
    const http = extensions.http;
    // Apollo's isPartialHTTPGraphQLHead and mergeHTTPGraphQLHead: a status only when set and not 0.
    if (isHttpHead(http)) {
      if (http.status) out.status = http.status;
      if (http.headers) for (const [name, value] of http.headers) out.headers.push([name, value]);
      delete extensions.http;
    }
    try {
      out.errors.push(formatError({ ...error.toJSON(), extensions }, error));
    } catch {
      out.errors.push({ message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR' } });
    }
  }
  return out;
}

function isHttpHead(value: unknown): value is { status?: number; headers?: Map<string, string> } {
  if (typeof value !== 'object' || value === null) return false;
  const head = value as { status?: unknown; headers?: unknown };
  return (!('status' in head) || typeof head.status === 'number') && (!('headers' in head) || head.headers instanceof Map);
}
