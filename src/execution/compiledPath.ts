import { getVariableValues } from 'graphql';
import type { CompiledExecutor, GraphqlResponse } from '../http/graphqlRoute';
import { limitRefusal, recordCalls, type ClientCostPolicy, type CostLimits } from '../limits/costLimit';
import { estimateRemembered, type CostEstimate } from '../limits/costEstimate';
import { upstreamCallCount } from '../upstreams/events';
import type { CompiledOperations } from './compiledOperations';

interface CompiledPathOptions {
  operations: CompiledOperations;
  /** MAX_UPSTREAM_CALLS and MAX_COST, as the cost limit plugin applies them. */
  limits: CostLimits;
  /** The client cost policy, when a clients file is loaded. */
  clients?: { cost: ClientCostPolicy };
}

/** Accept headers whose content type Apollo chose, kept; few distinct ones come (one per client library). */
const MAX_ACCEPT_HEADERS = 64;

/**
 * A compiled operation's execution without Apollo Server (issue 14): for a POST of one query whose exact text was
 * compiled (a trusted document, or a text Apollo validated and compiled after repeated use), the parse, validation,
 * document limits and compilation are done already, so only what depends on the request is left: the variables,
 * the upstream-call limit and the client's cost policy, and the execution.
 *
 * Everything else is Apollo's, done once: a request this executor does not take (a refusal of any kind, a batch, a
 * GET, an APQ registration, an accept header Apollo has not yet answered) goes to Apollo before any work with an
 * effect; the content type is the one Apollo chose for the same accept header; a result with errors is handed to
 * Apollo (the jit executor returns it, src/execution/jitExecution.ts), which formats the errors and sets the status
 * as it does for its own executions. The route reads, records and writes the outcome.
 */
export function compiledPath(options: CompiledPathOptions): CompiledExecutor {
  const { operations, limits, clients } = options;
  const contentTypes = new Map<string, string>();

  return {
    learn(request, response) {
      const type = response.headers.get('content-type');
      // A 406 carries no choice of Apollo's; a batch's type is not a single result's.
      if (!type || response.status === 406 || request.read.batched) return;
      const accept = request.header('accept') ?? '';
      if (contentTypes.get(accept) === type) return;
      if (contentTypes.size >= MAX_ACCEPT_HEADERS) contentTypes.clear();
      contentTypes.set(accept, type);
    },

    run(request) {
      const { read, record } = request;
      const [op] = read.operations;
      if (request.method !== 'POST' || read.batched || !op?.wellFormed || op.query === undefined) return undefined;
      // Other extensions, or an APQ registration (text and hash), are Apollo's to handle.
      if (Object.keys(op.extensions ?? {}).some((name) => !(op.resolvedBy && name === 'persistedQuery'))) return undefined;
      const compiled = operations.find(op.query, op.operationName);
      const contentType = contentTypes.get(request.header('accept') ?? '');
      if (!compiled || !contentType) return undefined;
      const values = op.variables ?? {};
      const { schema, document, operation } = compiled;
      const client = clients && record.client?.known;
      let estimate: CostEstimate;
      try {
        const definitions = operation.variableDefinitions ?? [];
        // Variables graphql-js refuses are Apollo's to word (BAD_USER_INPUT naming the field, HTTP 400).
        if (definitions.length > 0 && getVariableValues(schema, definitions, values, { maxErrors: 1 }).errors) return undefined;
        estimate = estimateRemembered({ schema, document, operation, variables: values });
        if (limitRefusal(limits, estimate)) return undefined;
        if (client && clients.cost.refusal(client, compiled, estimate)) return undefined;
      } catch {
        return undefined; // whatever the checks cannot judge, Apollo answers as it always has
      }

      return (async (): Promise<GraphqlResponse | undefined> => {
        const context = await request.context();
        // Timed from here, as Apollo's plugins time from requestDidStart (after the context).
        const started = performance.now();
        record.execution = 'compiled';
        const result = await compiled.query.query(undefined, context, values);
        if (result.errors) {
          // Apollo formats the errors and records the operation, as for its own executions.
          context.compiledResult = result;
          return undefined;
        }
        const { data } = result;
        if (client) {
          record.cost = estimate;
          clients.cost.admitted(client, estimate);
        }
        if (record.client) recordCalls(record.client, upstreamCallCount(context.upstreamCalls));
        record.operations.push({ operationName: compiled.name, type: operation.operation, outcome: 'success', errorCodes: [], durationMs: performance.now() - started });
        if (client) clients.cost.answered(client, compiled, data);
        // As Apollo writes it: `JSON.stringify(result)`.
        const body = `${JSON.stringify({ data })}\n`;
        return { status: 200, headers: new Map([['content-type', contentType]]), body };
      })();
    },
  };
}
