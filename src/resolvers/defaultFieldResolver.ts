import type { GraphQLFieldResolver } from 'graphql';

const snakeNames = new Map<string, string>();

/** `guestCount` → `guest_count`, cached: field names are few and this runs for every field of every response. */
export function snakeCase(name: string): string {
  let snake = snakeNames.get(name);
  if (snake === undefined) {
    snake = name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    snakeNames.set(name, snake);
  }
  return snake;
}

/**
 * The contract names fields as the upstream names in camelCase, so a field without its own resolver reads its
 * snake_case key from the upstream DTO. Renames that are not mechanical (`check_items` → `items`) and value
 * conversions have resolvers of their own; a test checks every schema field resolves to a DTO key or a resolver.
 */
export const snakeCaseFieldResolver: GraphQLFieldResolver<unknown, unknown> = (source, _args, _ctx, info) => {
  if (typeof source !== 'object' || source === null) return undefined;
  const record = source as Record<string, unknown>;
  const own = record[info.fieldName];
  return own !== undefined ? own : record[snakeCase(info.fieldName)];
};
