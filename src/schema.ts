import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { isObjectType, type GraphQLFieldResolver, type GraphQLSchema } from 'graphql';
import type { Resolvers } from './generated/graphql';
import { snakeCase } from './naming';

/** The SDL of schema/*.graphql, read once at start: found beside src/ when run from source, beside dist/ when built. */
export function loadTypeDefs(dir = findSchemaDir(__dirname)): string {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.graphql'))
    .sort()
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .join('\n');
}

function findSchemaDir(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'schema'))) return join(dir, 'schema');
    if (dirname(dir) === dir) throw new Error(`schema/ not found above ${from}`);
  }
}

/**
 * The SDL, our resolvers, and a resolver on every field whose upstream key is its snake_case name (graphql-jit reads
 * a field without one off its source by its own name). The fields of `recordTypes` get none: an upstream record
 * answers each field by its GraphQL name through a getter that checks the value when selected.
 */
export function buildExecutableSchema(typeDefs: string, resolvers: Resolvers, recordTypes: ReadonlySet<string> = new Set()): GraphQLSchema {
  // The generated Resolvers type is stricter than graphql-tools' IResolvers; it is the same object.
  const schema = makeExecutableSchema({ typeDefs, resolvers: resolvers as Parameters<typeof makeExecutableSchema>[0]['resolvers'] });
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__') || recordTypes.has(type.name)) continue;
    for (const field of Object.values(type.getFields())) {
      const key = snakeCase(field.name);
      if (!field.resolve && key !== field.name) field.resolve = snakeKeyResolver(field.name, key);
    }
  }
  return schema;
}

/** The field by its own name when the source has it (a record's getter, objects we built), else the snake_case key. */
function snakeKeyResolver(name: string, key: string): GraphQLFieldResolver<Record<string, unknown>, unknown> {
  return (source) => {
    const own = source[name];
    return own !== undefined ? own : source[key];
  };
}
