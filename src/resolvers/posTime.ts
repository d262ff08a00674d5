import type { Config } from '../config';
import { posTimestampToDateTime } from '../scalars';
import { TIMESTAMP_OUT_OF_RANGE } from '../upstreams/pos/assumptions';
import type { Read, Shape, UpstreamRecord } from '../upstreams/record';

/** The keys of a record whose reading is a POS integer timestamp. */
type TimestampKey<S extends Shape> = { [K in keyof S & string]: Read<S[K]> extends number | null ? K : never }[keyof S & string];

/**
 * A POS `*_at` field as a DateTime, in the unit of POS_TIMESTAMP_UNIT. An integer outside what a DateTime can show
 * fails this field alone, as a bad value of the upstream field (never as an internal error in the scalar).
 */
export function posDateTime<S extends Shape>(record: UpstreamRecord<S>, key: TimestampKey<S>, unit: Config['posTimestampUnit']): string | null {
  const value = record.read(key) as number | null;
  if (value === null) return null;
  const text = posTimestampToDateTime(value, unit);
  if (text === undefined) throw record.deviation(key, TIMESTAMP_OUT_OF_RANGE, `a timestamp in ${unit} between the years 0000 and 9999`);
  return text;
}
