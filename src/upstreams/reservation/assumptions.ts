import { z } from 'zod';
import { isDateTime } from '../../scalars';
import { withFastRead } from '../record';
import { isStringList } from '../schemas';

/** What reservation-service.md does not show, one assumption an entry: correcting one is a change here only. */

/** The read side: the document names "show" and "index: GET" without paths (CONTRACT.md). */
export const RESERVATION_READ = {
  /** `GET /v1/reservations/{id}` answers `{"reservation": {…}}` like the create operation. */
  showPath: (encodedId: string) => `/v1/reservations/${encodedId}`,
  /** `GET /v1/reservations?date=&revenue_center_id=&page=&per_page=` answers `{"reservations":[…],"meta":{…}}`. */
  indexPath: '/v1/reservations',
} as const;

/** The calendars operation ("response body: not shown") answers nothing or `{"reservation": {…}}`. */
export const CALENDAR_RESPONSE_KEY = 'reservation';

/**
 * The headers each operation needs: all four API-key headers for off-days and calendars (the document lists them
 * without saying how they combine); reads take the `Reservation-Access-Token` like the create operation.
 */
export const RESERVATION_REQUIRED_HEADERS = {
  createReservation: ['reservation-access-token'],
  readReservations: ['reservation-access-token'],
  updatePaymentRequest: ['reservation-access-token'],
  createCalendarReservation: ['authorization', 'employee_token', 'store_pin_code', 'slug_name'],
  createOffDay: ['authorization', 'employee_token', 'store_pin_code', 'slug_name'],
} as const;

/** A STORE_PIN_CODE is 4 characters (the examples' are): shorter credentials are not masked in upstream messages. */
export const STORE_PIN_CODE_LENGTH = 4;

const COLON = 0x3a;
const DATE_TIME_READ = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(Z|[+-]\d{2}(?::?\d{2})?)$/;

function normaliseDateTime(text: string): string | undefined {
  // Already the served form (isDateTime's, with `Z` or `±HH:MM`, as the service writes it): as it came, no match array.
  if ((text.endsWith('Z') || text.charCodeAt(text.length - 3) === COLON) && isDateTime(text)) return text;
  const m = DATE_TIME_READ.exec(text);
  if (!m) return undefined;
  const offset = m[3] === 'Z' ? 'Z' : `${m[3].slice(0, 3)}:${m[3].length === 3 ? '00' : m[3].slice(-2)}`;
  const canonical = `${m[1]}T${m[2]}${offset}`;
  return isDateTime(canonical) ? canonical : undefined;
}

const dateTime = z
  .string()
  .transform((text, ctx) => {
    const normalised = normaliseDateTime(text);
    if (normalised === undefined) ctx.addIssue({ code: 'custom', message: 'invalid_datetime' });
    return normalised ?? text;
  })
  .describe('an ISO 8601 date-time with a UTC offset');

const tableNames = z
  .union([z.string(), z.array(z.string()).transform((names) => names.join(', '))])
  .describe('a string, or an array of strings');

/**
 * How the record's fields are read where a line of the document reads more than one way (./dto.ts uses these). A day
 * view reads five date-times per reservation: a usable value is read without zod's per-call objects, any other by zod.
 */
export const RESERVATION_READINGS = {
  /**
   * "Dates in responses use ISO 8601 with a UTC offset": `Z`, `+03:00`, `+0300`, `+03` and a space for the `T` are
   * accepted and shown as `2026-11-21T19:30:00+03:00`; a date without an offset names no instant and fails its field.
   */
  dateTime: withFastRead(dateTime, (value) => (typeof value === 'string' ? normaliseDateTime(value) : undefined)),
  /** "table_names | string |" beside "table_ids | array of string": a list of names is accepted too, joined with ", ". */
  tableNames: withFastRead(tableNames, (value) => (typeof value === 'string' ? value : isStringList(value) ? value.join(', ') : undefined)),
} as const;

/** "may be tied to a customer and to one or more tables": `customer`, `table_id` and `table_names` may be null. */
export function blankWhenUntied<T extends z.ZodType>(schema: T): z.ZodNullable<T> {
  return schema.nullable();
}
