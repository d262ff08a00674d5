import type { GatewayExecutor, GatewayInterface } from '@apollo/server-gateway-interface';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { GraphQLError, getVariableValues, isObjectType, printSchema, type DocumentNode, type ExecutionResult, type GraphQLFieldResolver, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import type { Resolvers } from '../generated/graphql';
import { snakeCase } from '../resolvers/defaultFieldResolver';

/**
 * Execution compiled by graphql-jit instead of graphql-js's interpreter: each operation is compiled once into a
 * function (cached per parsed document, which Apollo's document store already keeps per query text) and runs
 * without graphql-js's per-field bookkeeping. Apollo Server still parses, validates (our limits included), runs
 * the plugins and formats errors; only `execute` is swapped, through Apollo's gateway executor hook.
 */

/**
 * The executable schema: the SDL, our resolvers, and a resolver on every field whose upstream key is its
 * snake_case name (graphql-jit reads a field without a resolver straight off its source object, by its own name).
 */
export function buildExecutableSchema(typeDefs: string, resolvers: Resolvers): GraphQLSchema {
  // The generated Resolvers type is stricter than graphql-tools' IResolvers; it is the same object.
  const schema = makeExecutableSchema({ typeDefs, resolvers: resolvers as Parameters<typeof makeExecutableSchema>[0]['resolvers'] });
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const key = snakeCase(field.name);
      if (!field.resolve && key !== field.name) field.resolve = snakeKeyResolver(field.name, key);
    }
  }
  return schema;
}

/** The field's own key when the source has it (objects we built), else the upstream's snake_case key. */
function snakeKeyResolver(name: string, key: string): GraphQLFieldResolver<Record<string, unknown>, unknown> {
  return (source) => {
    const own = source[name];
    return own !== undefined ? own : source[key];
  };
}

/**
 * graphql-jit's errors are GraphQLErrors by prototype only: without `extensions` Apollo's error formatting fails on
 * them. Rebuilt as graphql-js makes them, with the same message, path, locations and original error.
 */
function asGraphQLError(error: GraphQLError): GraphQLError {
  const rebuilt = new GraphQLError(error.message, { path: error.path, originalError: error.originalError ?? undefined, extensions: error.extensions ?? {} });
  (rebuilt as { locations?: GraphQLError['locations'] }).locations = error.locations;
  return rebuilt;
}

export interface JitExecutionOptions {
  /** Compiled operations kept per document (operation names of one document). Default 16. */
  maxOperationsPerDocument?: number;
}

/** The gateway hook of Apollo Server that serves `schema` and executes with graphql-jit. */
export function jitExecution(schema: GraphQLSchema, options: JitExecutionOptions = {}): GatewayInterface {
  const maxPerDocument = options.maxOperationsPerDocument ?? 16;
  // Keyed by the document object: when Apollo's document store evicts it, its compiled code goes with it.
  const compiled = new WeakMap<DocumentNode, Map<string, CompiledQuery>>();

  const compiledFor = (document: DocumentNode, operationName: string | null): CompiledQuery | ExecutionResult => {
    let byName = compiled.get(document);
    const name = operationName ?? '';
    const hit = byName?.get(name);
    if (hit) return hit;
    const result = compileQuery(schema, document, operationName ?? undefined);
    if (!isCompiledQuery(result)) return result; // errors, as graphql-js would answer them
    if (!byName) compiled.set(document, (byName = new Map()));
    if (byName.size < maxPerDocument) byName.set(name, result);
    return result;
  };

  const executor: GatewayExecutor = async (request) => {
    const query = compiledFor(request.document, request.operationName);
    if (!isCompiledQuery(query)) return query;
    // Variables are coerced by graphql-js first, so a bad one is refused with graphql-js's own errors: Apollo makes
    // those BAD_USER_INPUT and our formatting names the field from them (graphql-jit words and places them apart).
    const definitions = request.operation.variableDefinitions ?? [];
    if (definitions.length > 0) {
      const coerced = getVariableValues(schema, definitions, request.request.variables ?? {}, { maxErrors: 50 });
      if (coerced.errors) return { errors: coerced.errors };
    }
    const result = await query.query(undefined, request.context, request.request.variables ?? {});
    return (result.errors ? { ...result, errors: result.errors.map(asGraphQLError) } : result) as ExecutionResult<Record<string, unknown>>;
  };

  return {
    onSchemaLoadOrUpdate(callback) {
      callback({ apiSchema: schema, coreSupergraphSdl: printSchema(schema) });
      return () => undefined;
    },
    load: async () => ({ executor }),
    stop: async () => undefined,
  };
}
