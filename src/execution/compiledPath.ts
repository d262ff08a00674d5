import { getVariableValues } from 'graphql';
import type { CompiledExecutor, GraphqlResponse } from '../pipeline/types';
import { judgeCost, reserveUpstreamCalls, type ClientCostPolicy, type CostLimits } from '../limits/costLimit';
import { estimateCost, type CostEstimate } from '../limits/costEstimate';
import { upstreamCallCount } from '../upstreams/events';
import { acceptsIncremental, usesIncrementalDelivery } from './incrementalExecution';
import type { JitExecution } from './jitExecution';

interface CompiledPathOptions {
  /** Where the compiled operations are found (the trusted documents, and texts compiled after repeated use). */
  operations: Pick<JitExecution, 'find'>;
  /** MAX_UPSTREAM_CALLS and MAX_COST, as the cost limit plugin applies them. */
  limits: CostLimits;
  /** The client cost policy, when a clients file is loaded. */
  clients?: { cost: ClientCostPolicy };
}

/** Accept headers whose content type Apollo chose, kept; few distinct ones come (one per client library). */
const MAX_ACCEPT_HEADERS = 64;

/** Answers shorter than this (in characters) are written as text; longer ones as bytes (see `run`). */
const TEXT_ANSWER_MAX = 16384;

/**
 * Runs a POST of one compiled query without Apollo Server: only the variables, the cost and the execution are left.
 * Anything else (a refusal, a batch, a GET, an APQ registration, an accept header Apollo has not answered yet) goes
 * to Apollo before any work with an effect, and so does a result with errors, for Apollo to format.
 */
export function compiledPath(options: CompiledPathOptions): CompiledExecutor {
  const { operations, limits, clients } = options;
  const contentTypes = new Map<string, string>();

  return {
    learn(request, response) {
      const type = response.headers.get('content-type');
      // A 406 carries no choice of Apollo's; a batch's type is not a single result's, nor a stream's.
      if (!type || response.status === 406 || request.read.batched || response.stream) return;
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
      // @defer and @stream for a client that reads multipart/mixed: the incremental executor's (graphql-jit ignores them).
      if (usesIncrementalDelivery(compiled.document) && acceptsIncremental(request.header('accept'))) return undefined;
      const values = op.variables ?? {};
      const client = clients && record.client?.known;
      // Variables graphql-js refuses are Apollo's to word (BAD_USER_INPUT naming the field, HTTP 400).
      const variables = getVariableValues(compiled.schema, compiled.operation.variableDefinitions ?? [], values, { maxErrors: 1 });
      if (variables.errors) return undefined;
      let estimate: CostEstimate;
      try {
        estimate = estimateCost({ schema: compiled.schema, document: compiled.document, operation: compiled.operation, variables: variables.coerced });
        // A refusal is Apollo's to answer (it judges again, alike); an admitted estimate is on the record and counted.
        if (judgeCost(limits, clients?.cost, record, estimate)) return undefined;
      } catch {
        return undefined; // whatever the estimate cannot judge, Apollo answers as it always has
      }

      return (async (): Promise<GraphqlResponse | undefined> => {
        // A spent budget is Apollo's to answer too: it reserves again, and answers 429 as it words errors.
        const reserving = reserveUpstreamCalls(record, estimate);
        if (reserving && (await reserving)) return undefined;
        const context = await request.context();
        // Timed from here, as Apollo's plugins time from requestDidStart (after the context).
        const started = performance.now();
        record.execution = 'compiled';
        // graphql-jit takes raw values only, and coerces them again inside the compiled query.
        const result = await compiled.query.query(undefined, context, values);
        if (result.errors) {
          context.compiledResult = result;
          return undefined;
        }
        if (record.client) record.client.actualUpstreamCalls = upstreamCallCount(context.upstreamCalls);
        record.operations.push({ operationName: compiled.operation.name?.value ?? null, type: compiled.operation.operation, outcome: 'success', errorCodes: [], durationMs: performance.now() - started });
        if (client) clients.cost.answered(client, compiled, result.data);
        // As Apollo writes it: `JSON.stringify(result)`. A small answer goes to the socket as text, with the headers in
        // one write; a large one as its bytes at once, while the text is young: a day view's text (238 KB, two bytes a
        // character) kept until the write cost S2d a few per cent more CPU (docs/performance.md).
        const text = `${JSON.stringify({ data: result.data })}\n`;
        return { status: 200, headers: new Map([['content-type', contentType]]), body: text.length < TEXT_ANSWER_MAX ? text : Buffer.from(text) };
      })();
    },
  };
}
