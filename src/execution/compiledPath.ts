import { GraphQLError, getVariableValues, type GraphQLFormattedError } from 'graphql';
import type { GatewayContext } from '../context';
import type { GraphqlRequest, GraphqlResponse } from '../http/graphqlRoute';
import { recordCalls, type ClientCostPolicy } from '../limits/clientCostLimit';
import { estimateRemembered, type CostEstimate } from '../limits/costEstimate';
import { outcomeOfResult } from '../observability/operationOutcome';
import { responseContentType } from './accept';
import type { CompiledOperations } from './compiledOperations';
import { asGraphQLError } from './jitExecution';

interface CompiledPathOptions {
  operations: CompiledOperations;
  /** MAX_UPSTREAM_CALLS, as the upstream-call limit plugin applies it. */
  maxUpstreamCalls: number;
  /** Apollo's `formatError` (src/errors/formatError.ts). */
  formatError: (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError;
  /** The per-request context, as Apollo's requests get it. */
  context(request: GraphqlRequest): Promise<GatewayContext>;
  /** The client cost policy, when a clients file is loaded. */
  clients?: { cost: ClientCostPolicy };
}

/**
 * A compiled operation's request without Apollo Server (issue 14): for a POST of one query whose exact text was
 * compiled (a trusted document, or a text Apollo validated and compiled after repeated use), the parse, validation,
 * document limits and compilation are done already, so only what depends on the request is left: the variables,
 * the upstream-call limit and the client's cost policy, the context, the execution, and what Apollo's plugins do
 * with the result (error formatting, the request record, the client's cost records). The route writes the outcome.
 *
 * Anything this path does not answer exactly as Apollo would (a refusal of any kind, a batch, a GET, an APQ
 * extension, an accept header without a JSON type) gives `undefined` before any work with an effect, and the route
 * hands the request to Apollo, which answers it as it always has.
 */
export function compiledPath(options: CompiledPathOptions): (request: GraphqlRequest) => Promise<GraphqlResponse> | undefined {
  const { operations, maxUpstreamCalls, formatError, clients } = options;

  return (request) => {
    const { read, record } = request;
    const [op] = read.operations;
    if (request.method !== 'POST' || read.batched || !op?.wellFormed || op.query === undefined) return undefined;
    // Other extensions, or an APQ registration (text and hash), are Apollo's to handle.
    if (Object.keys(op.extensions ?? {}).some((name) => !(op.resolvedBy && name === 'persistedQuery'))) return undefined;
    const { operationName } = op;
    const compiled = operations.find(op.query, operationName);
    if (!compiled) return undefined;
    const contentType = responseContentType(request.header('accept'));
    if (!contentType) return undefined;
    const values = op.variables ?? {};
    const { schema, document, operation } = compiled;
    const client = clients && record.client?.known;
    let estimate: CostEstimate;
    try {
      const definitions = operation.variableDefinitions ?? [];
      // Variables graphql-js refuses are Apollo's to word (BAD_USER_INPUT naming the field, HTTP 400).
      if (definitions.length > 0 && getVariableValues(schema, definitions, values, { maxErrors: 1 }).errors) return undefined;
      estimate = estimateRemembered({ schema, document, operation, variables: values });
      if (estimate.upstreamCalls > maxUpstreamCalls) return undefined;
      if (client && clients.cost.refusal(client, compiled, estimate)) return undefined;
    } catch {
      return undefined; // whatever the checks cannot judge, Apollo answers as it always has
    }

    return (async () => {
      const context = await options.context(request);
      // Timed from here, as Apollo's plugins time from requestDidStart (after the context).
      const started = performance.now();
      record.execution = 'compiled';
      if (client) {
        record.cost = estimate;
        clients.cost.admitted(client, estimate);
      }
      const result = await compiled.query.query(undefined, context, values);
      if (record.client) recordCalls(record.client, context.upstreamCalls.length);
      const { data } = result;
      const formatted = result.errors ? formatErrors(result.errors.map(asGraphQLError), formatError) : undefined;
      // Apollo writes `JSON.stringify(result)`; without errors that is `data` in its envelope, written by the
      // serialiser compiled from the operation's selection.
      const body = formatted || data === undefined ? `${JSON.stringify({ errors: formatted?.errors, data })}\n` : `{"data":${compiled.serialize(data)}}\n`;

      // What Apollo's plugins do as the response is sent: the record, then the client's actual cost.
      const { outcome, errorCodes } = outcomeOfResult({ data, errors: formatted?.errors });
      record.operations.push({ operationName: compiled.name, type: operation.operation, outcome, errorCodes, durationMs: performance.now() - started });
      if (client) clients.cost.answered(client, compiled, data);
      const headers = new Map<string, string>(formatted?.headers ?? []);
      if (!headers.has('content-type')) headers.set('content-type', contentType);
      return { status: formatted?.status ?? 200, headers, body };
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
