import { z } from 'zod';
import { posTimestampToDateTime } from '../../scalars';
import { withFastRead } from '../record';
import { isStringList, posTimestamp, posTimestampReason } from '../schemas';

/** What pos-service.md leaves open or lets read two ways, one reading an entry (./dto.ts uses these). */

/** Every POS operation takes the token (pos-service.md, "Authentication"). */
export const POS_REQUIRED_HEADERS = ['pos-access-token'] as const;

/**
 * Fields typed as plain values, read as possibly null (null elsewhere counts as a deviation): `closed_at` (an open
 * check has not closed), `table` (delivery or take-away), `customer` (a walk-in guest), `delivery` (only delivery
 * checks have one), `check_service_charge` (none charged), and a check item's `parent_check_item_id` (a top-level
 * line) and `reason_id` (only complimentary or cancelled lines have a reason).
 */
export function blankWhenNotApplicable<T extends z.ZodType>(schema: T): z.ZodNullable<T> {
  return schema.nullable();
}

/**
 * "delivery | object | address, address_id (UUID), recipient, payment_names (strings)": a list of strings, or one
 * string like its neighbours, which becomes a one-element list, unsplit (its separator is not shown).
 */
const paymentNamesSchema = z
  .union([z.array(z.string()), z.string().transform((name) => [name])])
  .describe('an array of strings, or one string');
export const paymentNames = withFastRead(paymentNamesSchema, (value) => (isStringList(value) ? value : typeof value === 'string' ? [value] : undefined));

/** The unit of the POS integer timestamps ("not shown"): POS_TIMESTAMP_UNIT (src/config.ts). */
export type PosTimestampUnit = 's' | 'ms';

/** A POS `*_at` field read as a DateTime (UTC, `+00:00`) in `unit`; outside years 0000 to 9999 it is `out_of_range`. */
export function posDateTime(unit: PosTimestampUnit) {
  const schema = posTimestamp
    .transform((value, ctx) => {
      const text = posTimestampToDateTime(value, unit);
      if (text === undefined) ctx.addIssue({ code: 'custom', message: 'out_of_range' });
      return text ?? '';
    })
    .describe(`a timestamp in ${unit} between the years 0000 and 9999`);
  // The same reading without zod's per-call result objects: every check has three or more of these fields.
  return withFastRead(schema, (value) => (posTimestampReason(value) === undefined ? posTimestampToDateTime(value as number, unit) : undefined));
}
