import { HeaderMap, type ApolloServerPlugin, type GraphQLRequestContextResponseForOperation } from '@apollo/server';
import { execute, type IncrementalExecutionResults, type SingularExecutionResult } from '@graphql-tools/executor';
import { GraphQLError, Kind, OperationTypeNode, visit, type DocumentNode, type GraphQLFormattedError } from 'graphql';
import type { GatewayContext } from '../context';
import { mergeIncrementalResult } from '@graphql-tools/utils';
import { coerceVariables, type ClientCostPolicy } from '../limits/costLimit';
import type { StreamResult } from '../pipeline/stream';
import { upstreamCallCount } from '../upstreams/events';

/**
 * The third executor: `@defer` and `@stream` on graphql 16, with The Guild's `@graphql-tools/executor` (what Yoga and
 * Hive Gateway run). Apollo Server 5 delivers incrementally only on graphql 17 alpha, and graphql-js 16 and graphql-jit
 * ignore the directives (the whole result, in one body).
 *
 * It runs inside Apollo, as a plugin's `responseForOperation`: Apollo has read, parsed and validated the document
 * (document limits, trusted documents, APQ), resolved the operation and judged its cost (didResolveOperation) exactly as
 * for any request; this executor takes that document and operation, answers Apollo with the initial result, and leaves
 * the rest on the request for the route, which answers with a stream (`kind: 'incremental'`).
 */

/** The wire format `@graphql-tools/executor` gives: Apollo Router's and Apollo Client's `Defer20220824Handler`. */
export const DEFER_SPEC = 'deferSpec=20220824';
/** The content type of an incremental answer; the parts are separated by `\r\n---`. */
export const INCREMENTAL_CONTENT_TYPE = `multipart/mixed; boundary="-"; ${DEFER_SPEC}`;

/** The formatting every error gets on its way out (src/errors/formatError.ts), as Apollo calls it. */
type FormatError = (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError;

export interface IncrementalExecution {
  /** The plugin that executes such operations inside Apollo's request pipeline; it leaves the stream on `context.answer`. */
  readonly plugin: ApolloServerPlugin<GatewayContext>;
}

export interface IncrementalExecutionOptions {
  formatError: FormatError;
  /** The client cost policy, when a clients file is loaded: told the actual cost of all parts together. */
  clientCost?: ClientCostPolicy;
}

/** Whether `Accept` names `multipart/mixed` itself (a wildcard does not count) without asking for a format other than 20220824. */
export function acceptsIncremental(accept: string | undefined): boolean {
  if (!accept) return false;
  return accept.split(',').some((range) => {
    const [type = '', ...params] = range.split(';').map((p) => p.trim());
    if (type.toLowerCase() !== 'multipart/mixed') return false;
    const values = new Map(params.map((p) => p.split('=').map((s) => s.trim().replace(/^"|"$/g, '')) as [string, string | undefined]).map(([k, v]) => [k.toLowerCase(), v ?? '']));
    if (values.has('q') && Number(values.get('q')) === 0) return false;
    const spec = values.get('deferspec');
    return spec === undefined ? !values.has('incrementalspec') : spec === '20220824';
  });
}

const usesDirectives = new WeakMap<DocumentNode, boolean>();

/** Whether a document asks for `@defer` or `@stream` anywhere (kept per parsed document). */
export function usesIncrementalDelivery(document: DocumentNode): boolean {
  let uses = usesDirectives.get(document);
  if (uses === undefined) {
    uses = false;
    visit(document, {
      [Kind.DIRECTIVE](node) {
        if (node.name.value === 'defer' || node.name.value === 'stream') uses = true;
      },
    });
    usesDirectives.set(document, uses);
  }
  return uses;
}

export function incrementalExecution(options: IncrementalExecutionOptions): IncrementalExecution {
  const format = errorFormatter(options.formatError);

  async function respond(requestContext: GraphQLRequestContextResponseForOperation<GatewayContext>) {
    const { operation, document, request, contextValue, schema } = requestContext;
    const { answer } = contextValue;
    // One operation of a request that is not a batch (the route says so), and queries only: a mutation's answer may
    // be kept whole for a replay (idempotency).
    if (!answer.streamable || answer.stream || operation.operation !== OperationTypeNode.QUERY) return null;
    if (!acceptsIncremental(request.http?.headers.get('accept')) || !usesIncrementalDelivery(document)) return null;
    // Variables graphql-js refuses are answered by Apollo's executor, in its words (BAD_USER_INPUT, 400).
    if (coerceVariables(contextValue, schema, operation, request.variables).errors) return null;
    const result = await execute<Record<string, unknown>>({ schema, document, contextValue, variableValues: request.variables ?? {}, operationName: request.operationName });
    if (!('initialResult' in result)) return { http: { status: undefined, headers: new HeaderMap() }, body: { kind: 'single' as const, singleResult: format.result(result) } };
    const initial: StreamResult = { ...format.result(result.initialResult), hasNext: result.initialResult.hasNext };
    const client = options.clientCost && contextValue.record.client?.known;
    // The whole answer, assembled as the parts pass, for the actual cost (costLimitPlugin leaves incremental answers to this).
    const answered = client ? (data: unknown) => options.clientCost!.answered(client, { schema, document, operation }, data as Record<string, unknown> | null) : undefined;
    answer.stream = { kind: 'incremental', results: recorded(contextValue, initial, format.later(result.subsequentResults), answered) };
    // Apollo writes the initial result and records it (recordPlugin); the content type keeps Apollo from choosing JSON.
    const { hasNext: _hasNext, ...singleResult } = initial;
    return { http: { status: undefined, headers: new HeaderMap([['content-type', INCREMENTAL_CONTENT_TYPE]]) }, body: { kind: 'single' as const, singleResult } };
  }

  return {
    plugin: {
      async requestDidStart() {
        return { responseForOperation: respond };
      },
    },
  };
}

/**
 * The parts in order, the initial first; as the last one passes, the operation's record (written by recordPlugin from
 * the initial result) takes in the later parts' errors, its whole duration and the upstream calls of every part.
 */
async function* recorded(
  context: GatewayContext,
  initial: StreamResult,
  later: AsyncGenerator<StreamResult>,
  answered?: (data: unknown) => void,
): AsyncGenerator<StreamResult> {
  const { record } = context;
  // recordPlugin timed the operation up to its initial result, which the route writes first: the rest is added.
  const resumed = performance.now();
  const codes = new Set<string>();
  let failed = false;
  // A copy: the parts are merged into it while the initial result may still be on its way out.
  const whole = answered ? { data: structuredClone(initial.data) } : undefined;
  try {
    yield initial;
    if (!initial.hasNext) return;
    for await (const part of later) {
      if (whole) mergeIncrementalResult({ incrementalResult: part as never, executionResult: whole });
      for (const entry of part.incremental ?? []) {
        const errors = (entry as { errors?: GraphQLFormattedError[] }).errors ?? [];
        if (errors.length > 0) failed = true;
        for (const e of errors) if (typeof e.extensions?.code === 'string') codes.add(e.extensions.code);
      }
      yield part;
    }
  } finally {
    const op = record.operations.at(-1);
    if (op) {
      op.durationMs += performance.now() - resumed;
      if (failed) {
        op.outcome = op.outcome === 'error' ? 'error' : 'partial';
        op.errorCodes = [...new Set([...op.errorCodes, ...codes])];
      }
    }
    if (record.client) record.client.actualUpstreamCalls = upstreamCallCount(context.upstreamCalls);
    answered?.(whole?.data);
  }
}

/** Errors formatted as Apollo formats an executor's: a code when none (INTERNAL_SERVER_ERROR), then formatError. */
function errorFormatter(formatError: FormatError) {
  const one = (error: GraphQLError): GraphQLFormattedError => {
    const formatted = error.toJSON();
    const code = formatted.extensions?.code ?? 'INTERNAL_SERVER_ERROR';
    return formatError({ ...formatted, extensions: { ...formatted.extensions, code } }, error);
  };
  const all = (errors: readonly GraphQLError[] | undefined) => (errors && errors.length > 0 ? { errors: errors.map(one) } : {});
  return {
    result(result: SingularExecutionResult): StreamResult {
      return { ...all(result.errors), ...(result.data !== undefined ? { data: result.data as Record<string, unknown> | null } : {}), ...(result.extensions ? { extensions: result.extensions as Record<string, unknown> } : {}) };
    },
    async *later(results: IncrementalExecutionResults['subsequentResults']): AsyncGenerator<StreamResult> {
      for await (const part of results) {
        const incremental = part.incremental?.map(({ errors, ...entry }) => ({ ...entry, ...all(errors) }));
        yield { ...(incremental ? { incremental } : {}), hasNext: part.hasNext, ...(part.extensions ? { extensions: part.extensions } : {}) };
      }
    },
  };
}
