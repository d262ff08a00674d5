import { z } from 'zod';
import { DECIMAL_PATTERN, isCalendarDate } from '../scalars';
import { jsonType, withFastCheck, type RecordOf } from './record';

/**
 * Zod primitives shared by both upstreams' DTOs.
 *
 * Response policy (an assumption, kept here): the schemas declare our reading of each documented field, and are
 * applied one field at a time when a resolver reads it (./record.ts). A value that breaks its field's reading fails
 * that field alone; a field the documents type as "X or null", or that an assumption reads as possibly blank, is
 * `.nullable()`, and null anywhere else is a deviation. Unknown extra fields are ignored. A failed check names a
 * reason (the zod message, e.g. `invalid_date`) or, failing one, the JSON type that came.
 */

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const uuid = withFastCheck(z.string().regex(UUID_PATTERN, 'invalid_uuid').describe('a UUID'), (v) =>
  typeof v !== 'string' ? jsonType(v) : UUID_PATTERN.test(v) ? undefined : 'invalid_uuid',
);

/**
 * Money as the upstreams send it: a decimal string such as "125.50", in the Decimal scalar's own bounds, so a value
 * the gateway cannot show fails its field as a bad response, not later as an internal error.
 */
export const moneyString = withFastCheck(
  z.string().regex(DECIMAL_PATTERN, 'invalid_decimal').describe('a decimal string of at most 15 integer digits and 6 decimals'),
  (v) => (typeof v !== 'string' ? jsonType(v) : DECIMAL_PATTERN.test(v) ? undefined : 'invalid_decimal'),
);

/** GraphQL's Int is 32 bits: a larger integer fails its field here rather than in graphql's serializer. */
export const int = withFastCheck(
  z
    .number()
    .int('not_integer')
    .min(-(2 ** 31), 'out_of_range')
    .max(2 ** 31 - 1, 'out_of_range')
    .describe('a 32-bit integer'),
  (v) => (typeof v !== 'number' ? jsonType(v) : !Number.isSafeInteger(v) ? 'not_integer' : v < -(2 ** 31) || v > 2 ** 31 - 1 ? 'out_of_range' : undefined),
);

/** POS `*_at` timestamps: integers; their range depends on POS_TIMESTAMP_UNIT, so it is checked where they are converted. */
export const posTimestamp = withFastCheck(z.number().int('not_integer').describe('an integer timestamp'), (v) =>
  typeof v !== 'number' ? jsonType(v) : Number.isSafeInteger(v) ? undefined : 'not_integer',
);

/** `YYYY-MM-DD`, a day that exists (no 2026-02-30). */
export const dateString = withFastCheck(z.string().refine(isCalendarDate, 'invalid_date').describe('a date YYYY-MM-DD'), (v) =>
  typeof v !== 'string' ? jsonType(v) : isCalendarDate(v) ? undefined : 'invalid_date',
);

/** The pagination metadata of list responses (`meta`). */
export const PaginationMeta = z.object({
  total_count: int.min(0, 'out_of_range'),
  current_page: int.min(1, 'out_of_range'),
  per_page_count: int.min(0, 'out_of_range'),
  total_page: int.min(0, 'out_of_range'),
  has_next_page: z.boolean(),
});
export type PaginationMetaDto = z.infer<typeof PaginationMeta>;
export type PaginationMetaRecord = RecordOf<typeof PaginationMeta>;

/**
 * The documented error body: `{"errors":[{"message","code"}]}`. Parsed leniently: an error answer whose body is
 * something else is still an error, just without an upstream code.
 */
export const UpstreamErrorBody = z.object({
  errors: z
    .array(z.object({ message: z.string().optional(), code: z.union([z.number(), z.string()]).optional() }))
    .min(1),
});
