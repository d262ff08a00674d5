import { z } from 'zod';
import { InputError } from '../errors/InputError';
import { formatPath } from '../errors/fieldPath';
import { toUpstreamLocalDateTime } from '../scalars';
import { camelCase, snakeCase } from '../naming';
import { UUID_PATTERN } from '../upstreams/schemas';

/**
 * Validates GraphQL arguments with zod before any upstream call. The first problem becomes an InputError
 * (BAD_USER_INPUT) whose `field` is the argument path, e.g. `input.amount`.
 */
export function parseArgs<S extends z.ZodType>(schema: S, args: unknown): z.output<S> {
  const parsed = schema.safeParse(args);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = formatPath(issue.path);
  throw new InputError(`${field || 'input'}: ${issue.message}`, field || undefined);
}

/** GraphQL gives null for an explicit null; the upstream bodies want the key left out. */
export const opt = <S extends z.ZodType>(schema: S) => schema.nullish().transform((v) => (v === null ? undefined : v));

export const uuidArg = z.string().regex(UUID_PATTERN, 'must be a UUID');
export const positiveInt = z.number().int().min(1, 'must be at least 1');
export const count = z.number().int().min(0, 'must not be negative');
/** A canonical LocalDateTime in the upstream's `YYYY-MM-DD HH:MM` (both forms sort as time). */
export const localDateTime = z.string().transform(toUpstreamLocalDateTime);

/** Page arguments of the list queries (CONTRACT.md: perPage accepts at least 1..100). */
export const pageArgs = {
  page: z.number().int().min(1, 'must be at least 1').max(100_000, 'must be at most 100000'),
  perPage: z.number().int().min(1, 'must be between 1 and 100').max(100, 'must be between 1 and 100'),
};

/** An input in the upstream's names, nested objects and lists too: the contract's rule (`guestCount` → `guest_count`). */
export function snakeCased(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snakeCased);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [snakeCase(key), snakeCased(inner)]));
}

/**
 * Upstream request field → GraphQL input path (`customer.first_name` → `input.customer.firstName`) for each argument
 * piped into an upstream body schema, by the same naming rule, so upstream refusals speak GraphQL.
 */
export function upstreamFieldPaths(args: z.ZodObject): ReadonlyMap<string, string> {
  const paths = new Map<string, string>();
  const walk = (body: z.ZodObject, upstream: string, input: string): void => {
    for (const [key, schema] of Object.entries<z.ZodType>(body.shape)) {
      const up = upstream + key;
      const path = `${input}.${camelCase(key)}`;
      paths.set(up, path);
      const nested = schema instanceof z.ZodOptional ? schema.unwrap() : schema;
      if (nested instanceof z.ZodObject) walk(nested, `${up}.`, path);
    }
  };
  for (const [argument, schema] of Object.entries(args.shape)) {
    if (schema instanceof z.ZodPipe && schema.out instanceof z.ZodObject) walk(schema.out, '', argument);
  }
  return paths;
}
