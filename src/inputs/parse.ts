import { z } from 'zod';
import { InputError } from '../errors/InputError';
import { formatPath } from '../errors/fieldPath';
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

/** Page arguments of the list queries (CONTRACT.md: perPage accepts at least 1..100). */
export const pageArgs = {
  page: z.number().int().min(1, 'must be at least 1').max(100_000, 'must be at most 100000'),
  perPage: z.number().int().min(1, 'must be between 1 and 100').max(100, 'must be between 1 and 100'),
};
