import type { GatewayExecutor, GatewayGraphQLRequestContext, GatewayInterface } from '@apollo/server-gateway-interface';
import {
  GraphQLError,
  OperationTypeNode,
  execute,
  getVariableValues,
  printSchema,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLSchema,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import type { GatewayContext } from '../context';
import type { CompiledOperations } from './compiledOperations';

/**
 * Execution of the documents clients send again and again compiled by graphql-jit, everything else by graphql-js.
 * Apollo Server still parses, validates (our limits included), runs the plugins and formats errors; only `execute`
 * is swapped, through Apollo's gateway executor hook.
 *
 * Why not compile everything: compiling costs many executions' worth of time, and V8 keeps the generated code of
 * every compiled document in its compilation cache long after the document is gone, so a client sending ever new
 * literal documents would exhaust memory. A document is compiled only once it has run
 * `minUses` times, and at most `maxCompiledDocuments` are ever compiled in a process; the rest run on graphql-js.
 * Mutations always run on graphql-js: it stops at a failed root field, as the GraphQL spec's serial execution
 * requires (graphql-jit goes on with the next mutation, which would book what the client never learns about).
 */

export interface JitExecutionOptions {
  /** Runs of a document on graphql-js before it is compiled; a one-off document is never compiled. Default 3. */
  minUses?: number;
  /** Documents compiled over the life of the process; later ones stay on graphql-js. Default 50. */
  maxCompiledDocuments?: number;
}

/** What the executor did, for tests and the benchmark: documents compiled, and executions by each engine. */
export interface JitExecutionStats {
  compiledDocuments: number;
  compiledRuns: number;
  interpretedRuns: number;
}

export interface JitExecution extends GatewayInterface {
  stats(): JitExecutionStats;
}

/**
 * The gateway hook of Apollo Server that serves `schema` and executes as described above. Each query text compiled
 * here is handed to `learned` too, so that its next requests can skip Apollo (src/execution/compiledPath.ts).
 */
export function jitExecution(schema: GraphQLSchema, options: JitExecutionOptions = {}, learned?: CompiledOperations): JitExecution {
  const minUses = options.minUses ?? 3;
  const maxCompiled = options.maxCompiledDocuments ?? 50;
  // Keyed by the parsed document, which Apollo's document store keeps (one object per query text) while in use.
  const uses = new WeakMap<DocumentNode, number>();
  const compiled = new WeakMap<DocumentNode, Map<string, CompiledQuery>>();
  const stats: JitExecutionStats = { compiledDocuments: 0, compiledRuns: 0, interpretedRuns: 0 };

  /** The compiled operation when the document has earned it, else undefined (graphql-js runs it). */
  const compiledFor = (request: GatewayGraphQLRequestContext): CompiledQuery | undefined => {
    const { document, operationName } = request;
    const name = operationName ?? '';
    let byName = compiled.get(document);
    const hit = byName?.get(name);
    if (hit) return hit;
    // A trusted document was compiled at start (the same parsed document Apollo found pinned): not compiled again.
    const known = learned?.find(request.source, operationName);
    if (known?.document === document) return known.query;
    const count = (uses.get(document) ?? 0) + 1;
    uses.set(document, count);
    if (count < minUses || stats.compiledDocuments >= maxCompiled) return undefined;
    const result = compileQuery(schema, document, operationName ?? undefined);
    if (!isCompiledQuery(result)) return undefined; // graphql-js answers with its own errors
    if (!byName) {
      compiled.set(document, (byName = new Map<string, CompiledQuery>()));
      stats.compiledDocuments += 1;
    }
    byName.set(name, result);
    learned?.learn(request.source, document, result);
    return result;
  };

  const interpret = (request: GatewayGraphQLRequestContext): Promise<ExecutionResult> | ExecutionResult => {
    stats.interpretedRuns += 1;
    return execute({
      schema,
      document: request.document,
      contextValue: request.context,
      variableValues: request.request.variables,
      operationName: request.operationName,
    });
  };

  const executor: GatewayExecutor = async (request) => {
    // Executed already by the compiled executor, which hands a result with errors to Apollo to format.
    const done = (request.context as Partial<GatewayContext>).compiledResult;
    if (done) return withGraphQLErrors(done);
    const query = request.operation.operation === OperationTypeNode.MUTATION ? undefined : compiledFor(request);
    if (!query) return (await interpret(request)) as ExecutionResult<Record<string, unknown>>;
    // Variables are coerced by graphql-js first, so a bad one is refused with graphql-js's own errors: Apollo makes
    // those BAD_USER_INPUT and our formatting names the field from them (graphql-jit words and places them apart).
    const definitions = request.operation.variableDefinitions ?? [];
    if (definitions.length > 0) {
      const coerced = getVariableValues(schema, definitions, request.request.variables ?? {}, { maxErrors: 50 });
      if (coerced.errors) return { errors: coerced.errors };
    }
    stats.compiledRuns += 1;
    return withGraphQLErrors(await query.query(undefined, request.context, request.request.variables ?? {}));
  };

  return {
    onSchemaLoadOrUpdate(callback) {
      callback({ apiSchema: schema, coreSupergraphSdl: printSchema(schema) });
      return () => undefined;
    },
    load: async () => ({ executor }),
    stop: async () => undefined,
    stats: () => ({ ...stats }),
  };
}

function withGraphQLErrors(result: ExecutionResult): ExecutionResult<Record<string, unknown>> {
  return (result.errors ? { ...result, errors: result.errors.map(asGraphQLError) } : result);
}

/**
 * graphql-jit's errors are GraphQLErrors by prototype only: without `extensions` Apollo's error formatting fails on
 * them. Rebuilt as graphql-js makes them, with the same message, path and locations, and the original error where
 * graphql-jit kept one (a resolver's; not for a value a scalar refused, whose TypeError it words into the message).
 */
function asGraphQLError(error: GraphQLError): GraphQLError {
  const rebuilt = new GraphQLError(error.message, { path: error.path, originalError: error.originalError ?? undefined, extensions: error.extensions ?? {} });
  (rebuilt as { locations?: GraphQLError['locations'] }).locations = error.locations;
  return rebuilt;
}
