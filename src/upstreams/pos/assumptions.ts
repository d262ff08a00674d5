import { z } from 'zod';
import { posTimestampToDateTime } from '../../scalars';
import { posTimestamp } from '../schemas';

/**
 * Everything about the POS service that its document (pos-service.md) leaves open or lets read two ways, in one
 * place. Each entry quotes the line it reads; correcting one is a change here only. The DTOs (./dto.ts) use these.
 */

/** Every POS operation takes the token (pos-service.md, "Authentication"). */
export const POS_REQUIRED_HEADERS = ['pos-access-token'] as const;

/**
 * Fields the document types as plain values, read as possibly null because a real check often has nothing to say
 * there. Quoted lines, and the reading:
 * - "created_at, updated_at, closed_at | integer | timestamps" with "status | string | value `open` appears":
 *   an open check has not closed, so `closed_at` may be null;
 * - "table | object | id, name": a delivery or take-away check has no table;
 * - "customer | object | Customer (below)": a walk-in guest is nobody the POS knows;
 * - "delivery | object | address, address_id (UUID), recipient, payment_names (strings)": only delivery checks have
 *   one;
 * - "check_service_charge | object | …": a check may have no service charge;
 * - "check_items | array | each: id, parent_check_item_id, reason_id, …" (no type given): a top-level line has no
 *   parent, and only a complimentary or cancelled line has a reason.
 * Null anywhere else is counted as a deviation (docs/clients.md, "When an upstream answers differently").
 */
export function blankWhenNotApplicable<T extends z.ZodType>(schema: T): z.ZodNullable<T> {
  return schema.nullable();
}

/**
 * "delivery | object | address, address_id (UUID), recipient, payment_names (strings)". Read two ways: a list of
 * strings (the plural name), or a string like its neighbours (as "amount, tax_amount, net_amount (strings)" means
 * one string each). Both are accepted; a single string becomes a one-element list, unsplit, since its separator is
 * not shown.
 */
export const paymentNames = z
  .union([z.array(z.string()), z.string().transform((name) => [name])])
  .describe('an array of strings, or one string');

/** The unit of the POS integer timestamps: POS_TIMESTAMP_UNIT (src/config.ts). */
export type PosTimestampUnit = 's' | 'ms';

/**
 * "`*_at` timestamps are integers" and "the unit of the integer timestamps: not shown": seconds or milliseconds,
 * chosen by the setting POS_TIMESTAMP_UNIT (src/config.ts), and read as the contract's DateTime (UTC, `+00:00`). A
 * value outside years 0000 to 9999 in that unit fails its field as `out_of_range`.
 */
const TIMESTAMP_OUT_OF_RANGE = 'out_of_range';

/** A POS `*_at` field read as a DateTime in `unit`. */
export function posDateTime(unit: PosTimestampUnit) {
  return posTimestamp
    .transform((value, ctx) => {
      const text = posTimestampToDateTime(value, unit);
      if (text === undefined) ctx.addIssue({ code: 'custom', message: TIMESTAMP_OUT_OF_RANGE });
      return text ?? '';
    })
    .describe(`a timestamp in ${unit} between the years 0000 and 9999`);
}
