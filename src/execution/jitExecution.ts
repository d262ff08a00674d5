import type { GatewayExecutor, GatewayGraphQLRequestContext, GatewayInterface } from '@apollo/server-gateway-interface';
import {
  GraphQLError,
  OperationTypeNode,
  execute,
  getOperationAST,
  printSchema,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLSchema,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import type { GatewayContext } from '../context';
import { coerceVariables } from '../limits/costLimit';
import type { ResolvedOperation } from '../limits/costEstimate';

/**
 * Compiling costs many executions, and V8 keeps the generated code long after the document is gone: hence `minUses`
 * and `maxCompiledDocuments`. Mutations always run on graphql-js, which stops at a failed root field as the spec's
 * serial execution requires (graphql-jit goes on with the next mutation).
 */
export interface JitExecutionOptions {
  /** Runs of a document on graphql-js before it is compiled; a one-off document is never compiled. Default 3. */
  minUses?: number;
  /** Documents compiled over the life of the process, trusted ones apart; later ones stay on graphql-js. Default 50. */
  maxCompiledDocuments?: number;
  /** The trusted documents, validated at start: compiled at once (the manifests bound them). */
  trusted?: Iterable<DocumentNode>;
}

/** A document of one query, compiled; the compiled executor may run it without Apollo (src/execution/compiledPath.ts). */
export interface CompiledOperation extends ResolvedOperation {
  readonly query: CompiledQuery;
}

export interface JitExecution extends GatewayInterface {
  /** The operation compiled for this exact text and requested name, if any; else Apollo runs the request. */
  find(text: string, operationName: string | null | undefined): CompiledOperation | undefined;
  /** What the executor did, for tests: documents compiled, and executions by each engine. */
  stats(): Record<'compiledDocuments' | 'compiledRuns' | 'interpretedRuns', number>;
}

/** Apollo's gateway hook, executing on graphql-jit what was compiled and on graphql-js the rest; the one compile cache. */
export function jitExecution(schema: GraphQLSchema, options: JitExecutionOptions = {}): JitExecution {
  const minUses = options.minUses ?? 3;
  const maxCompiled = options.maxCompiledDocuments ?? 50;
  // Uses are keyed by the parsed document, which Apollo's document store keeps while in use: ever-new texts hold no memory.
  const byText = new Map<string, CompiledOperation>();
  const uses = new WeakMap<DocumentNode, number>();
  const stats = { compiledDocuments: 0, compiledRuns: 0, interpretedRuns: 0 };

  // Only a document of one query is compiled: a document of several operations would need Apollo's choice of one.
  const compile = (text: string, document: DocumentNode): CompiledOperation | undefined => {
    const operation = getOperationAST(document);
    if (operation?.operation !== OperationTypeNode.QUERY) return undefined;
    const query = compileQuery(schema, document, operation.name?.value);
    if (!isCompiledQuery(query)) return undefined; // graphql-js answers with its own errors
    const compiled = { schema, document, operation, query };
    byText.set(text, compiled);
    return compiled;
  };
  for (const document of options.trusted ?? []) if (document.loc) compile(document.loc.source.body, document);

  const find = (text: string, operationName: string | null | undefined): CompiledOperation | undefined => {
    const found = byText.get(text);
    return found && (operationName == null || operationName === found.operation.name?.value) ? found : undefined;
  };

  /** The compiled operation when the document has earned it, else undefined (graphql-js runs it). */
  const compiledFor = ({ source, document, operationName }: GatewayGraphQLRequestContext): CompiledOperation | undefined => {
    const known = find(source, operationName);
    if (known) return known;
    const count = (uses.get(document) ?? 0) + 1;
    uses.set(document, count);
    if (count < minUses || stats.compiledDocuments >= maxCompiled) return undefined;
    const compiled = compile(source, document);
    if (compiled) stats.compiledDocuments += 1;
    return compiled;
  };

  const executor: GatewayExecutor = async (request) => {
    const context = request.context as GatewayContext;
    // Executed already by the compiled executor, which hands a result with errors to Apollo to format.
    if (context.compiledResult) return withGraphQLErrors(context.compiledResult);
    // Coerced once per request (by the cost limit plugin): graphql-js's errors, which Apollo makes BAD_USER_INPUT.
    const variables = coerceVariables(context, schema, request.operation, request.request.variables);
    if (variables.errors) return { errors: variables.errors };
    const compiled = request.operation.operation === OperationTypeNode.MUTATION ? undefined : compiledFor(request);
    const raw = request.request.variables ?? {};
    if (!compiled) {
      stats.interpretedRuns += 1;
      // graphql-js's execute takes raw values only, and coerces them again itself.
      return (await execute({ schema, document: request.document, contextValue: context, variableValues: raw, operationName: request.operationName })) as ExecutionResult<Record<string, unknown>>;
    }
    stats.compiledRuns += 1;
    // graphql-jit too takes raw values only, and coerces them again inside the compiled query.
    return withGraphQLErrors(await compiled.query.query(undefined, context, raw));
  };

  return {
    onSchemaLoadOrUpdate(callback) {
      callback({ apiSchema: schema, coreSupergraphSdl: printSchema(schema) });
      return () => undefined;
    },
    load: async () => ({ executor }),
    stop: async () => undefined,
    find,
    stats: () => ({ ...stats }),
  };
}

function withGraphQLErrors(result: ExecutionResult): ExecutionResult<Record<string, unknown>> {
  return result.errors ? { ...result, errors: result.errors.map(asGraphQLError) } : result;
}

/**
 * graphql-jit's errors are GraphQLErrors by prototype only: without `extensions` Apollo's error formatting fails on
 * them. Rebuilt as graphql-js makes them, keeping message, path, locations and the resolver's original error.
 */
function asGraphQLError(error: GraphQLError): GraphQLError {
  const rebuilt = new GraphQLError(error.message, { path: error.path, originalError: error.originalError ?? undefined, extensions: error.extensions ?? {} });
  (rebuilt as { locations?: GraphQLError['locations'] }).locations = error.locations;
  return rebuilt;
}
