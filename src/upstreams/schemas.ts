import { z } from 'zod';
import { DECIMAL_PATTERN, isCalendarDate } from '../scalars';
import { isPlainObject, jsonType, withFastCheck, type RecordOf } from './record';

/**
 * Zod primitives of both upstreams' DTOs. Response policy (an assumption): each field is checked when a resolver reads
 * it (./record.ts) and a bad value fails that field alone, naming a reason (`invalid_date`) or the JSON type that
 * came; only fields documented "X or null" or read as possibly blank are `.nullable()`; unknown fields are ignored.
 */

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const uuid = withFastCheck(z.string().regex(UUID_PATTERN, 'invalid_uuid').describe('a UUID'), uuidReason);

function uuidReason(v: unknown): string | undefined {
  return typeof v !== 'string' ? jsonType(v) : UUID_PATTERN.test(v) ? undefined : 'invalid_uuid';
}

/** The fast check of a list whose elements pass `element`: the reason is the first failing element's. */
function listReason(element: (v: unknown) => string | undefined): (v: unknown) => string | undefined {
  return (v) => {
    if (!Array.isArray(v)) return jsonType(v);
    for (const item of v as unknown[]) {
      const reason = element(item);
      if (reason !== undefined) return reason;
    }
    return undefined;
  };
}

/** Money as the upstreams send it ("125.50"), in the Decimal scalar's bounds: a value it cannot show fails here. */
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
export const posTimestamp = withFastCheck(z.number().int('not_integer').describe('an integer timestamp'), posTimestampReason);

/** posTimestamp's fast check: why a value is not an integer timestamp, or undefined. */
export function posTimestampReason(v: unknown): string | undefined {
  return typeof v !== 'number' ? jsonType(v) : Number.isSafeInteger(v) ? undefined : 'not_integer';
}

/** `YYYY-MM-DD`, a day that exists (no 2026-02-30). */
export const dateString = withFastCheck(z.string().refine(isCalendarDate, 'invalid_date').describe('a date YYYY-MM-DD'), (v) =>
  typeof v !== 'string' ? jsonType(v) : isCalendarDate(v) ? undefined : 'invalid_date',
);

/**
 * A free-form object (`extras`), served as it came: zod would copy every key of it for each read; any JSON object
 * passes, so the fast check is the whole check.
 */
export const jsonObject = withFastCheck(z.record(z.string(), z.unknown()), (v) => (isPlainObject(v) ? undefined : jsonType(v)));

/** A list of strings (`notes`), served as it came; the reason names the first element that is not a string. */
const stringListReason = listReason((v) => (typeof v === 'string' ? undefined : jsonType(v)));
export const stringList = withFastCheck(z.array(z.string()), stringListReason);

/** Whether `value` passes stringList (for readings that take a list of strings or something else). */
export function isStringList(value: unknown): value is string[] {
  return stringListReason(value) === undefined;
}

/** A list of UUIDs (`table_ids`); the reason is the first element's that is not one. */
export const uuidList = withFastCheck(z.array(uuid).describe('an array of UUIDs'), listReason(uuidReason));

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

/** The documented error body `{"errors":[{"message","code"}]}`; an error answer with another body has no upstream code. */
export const UpstreamErrorBody = z.object({
  errors: z
    .array(z.object({ message: z.string().optional(), code: z.union([z.number(), z.string()]).optional() }))
    .min(1),
});
