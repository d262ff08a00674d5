import { z } from 'zod';
import { DECIMAL_PATTERN } from '../scalars';

/**
 * Zod primitives shared by both upstreams' DTOs.
 *
 * Response policy (an assumption, kept here): every field the documents list must be present. A value may be
 * null unless it is the record's identity or a list, because services of this kind serialise blanks as null.
 * Unknown extra fields are dropped, so an upstream that adds fields does not break us.
 */

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const uuid = z.string().regex(UUID_PATTERN, 'must be a UUID');

/**
 * Money as the upstreams send it: a decimal string such as "125.50", in the Decimal scalar's own bounds, so a value
 * the gateway cannot show is refused here as a bad response naming the field, not later as an internal error.
 */
export const moneyString = z.string().regex(DECIMAL_PATTERN, 'must be a decimal string of at most 15 integer digits and 6 decimals');

/** ISO 8601 with a UTC offset, as the reservation service sends dates. */
export const isoDateTime = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/, 'must be ISO 8601 with an offset');

/** POS `*_at` timestamps: integers (unit set by POS_TIMESTAMP_UNIT). */
export const posTimestamp = z.number().int();

/** `YYYY-MM-DD`. */
export const dateString = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be YYYY-MM-DD');

/** The pagination metadata of list responses (`meta`). */
export const PaginationMeta = z.object({
  total_count: z.number().int().nonnegative(),
  current_page: z.number().int().positive(),
  per_page_count: z.number().int().nonnegative(),
  total_page: z.number().int().nonnegative(),
  has_next_page: z.boolean(),
});
export type PaginationMetaDto = z.infer<typeof PaginationMeta>;

/**
 * The documented error body: `{"errors":[{"message","code"}]}`. Parsed leniently: an error answer whose body is
 * something else is still an error, just without an upstream code.
 */
export const UpstreamErrorBody = z.object({
  errors: z
    .array(z.object({ message: z.string().optional(), code: z.union([z.number(), z.string()]).optional() }))
    .min(1),
});
export type UpstreamErrorBodyDto = z.infer<typeof UpstreamErrorBody>;
