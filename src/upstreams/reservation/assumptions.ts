import { z } from 'zod';
import { isDateTime } from '../../scalars';

/**
 * Everything about the reservation service that its document does not show, in one place. Each entry is an
 * assumption; correcting one is a change here only.
 */

/** The read side: the document names "show" and "index: GET" for reservations without paths (CONTRACT.md). */
export const RESERVATION_READ = {
  /** Assumed: `GET /v1/reservations/{id}` answers `{"reservation": {…}}` like the create operation. */
  showPath: (encodedId: string) => `/v1/reservations/${encodedId}`,
  /** Assumed: `GET /v1/reservations?date=&revenue_center_id=&page=&per_page=` answers `{"reservations":[…],"meta":{…}}`. */
  indexPath: '/v1/reservations',
} as const;

/**
 * Assumed: the calendars operation answers either nothing or `{"reservation": {…}}` like POST /v1/reservations
 * (the document says "response body: not shown").
 */
export const CALENDAR_RESPONSE_KEY = 'reservation';

/**
 * Which client headers each operation needs. The document lists the four API-key headers for the off-day and
 * calendar operations but not how they combine: assumed all four are required. Reads are assumed to take the
 * `Reservation-Access-Token` like the create operation (CONTRACT.md).
 */
export const RESERVATION_REQUIRED_HEADERS = {
  createReservation: ['reservation-access-token'],
  readReservations: ['reservation-access-token'],
  updatePaymentRequest: ['reservation-access-token'],
  createCalendarReservation: ['authorization', 'employee_token', 'store_pin_code', 'slug_name'],
  createOffDay: ['authorization', 'employee_token', 'store_pin_code', 'slug_name'],
} as const;

/**
 * Assumed: a STORE_PIN_CODE is 4 characters (the sandbox's and the examples' PINs are; the document never gives a
 * length). Credentials shorter than this are not looked for in upstream messages (any text would "contain" them),
 * so the PIN must be this long to be masked at all.
 */
export const STORE_PIN_CODE_LENGTH = 4;

/**
 * How the reservation record's fields are read where reservation-service.md lets a line read more than one way. The
 * DTOs (./dto.ts) use these; each quotes the line it reads.
 */
export const RESERVATION_READINGS = {
  /**
   * "Dates in responses use ISO 8601 with a UTC offset." ISO 8601 allows the offset as `Z`, `+03:00`, `+0300` or `+03`
   * and RFC 3339 a space for the `T`: all are accepted and shown as `2026-11-21T19:30:00+03:00` (`Z` kept). A date
   * without an offset (the request form `YYYY-MM-DD HH:MM`) names no instant and fails its field.
   */
  dateTime: z
    .string()
    .transform((text, ctx) => {
      const normalised = normaliseDateTime(text);
      if (normalised === undefined) ctx.addIssue({ code: 'custom', message: 'invalid_datetime' });
      return normalised ?? text;
    })
    .describe('an ISO 8601 date-time with a UTC offset'),
  /**
   * "table_names | string |" beside "table_ids | array of string | UUIDs": a plural name typed as one string. A
   * list of names is accepted too and joined with ", " (the form a single string of several names takes).
   */
  tableNames: z
    .union([z.string(), z.array(z.string()).transform((names) => names.join(', '))])
    .describe('a string, or an array of strings'),
} as const;

/**
 * "A reservation belongs to a revenue center and may be tied to a customer and to one or more tables." Read as: the
 * record's `customer`, `table_id` and `table_names` may be null (no customer, no table yet), though the record
 * table types them as an object and strings.
 */
export function blankWhenUntied<T extends z.ZodType>(schema: T): z.ZodNullable<T> {
  return schema.nullable();
}

const DATE_TIME_READ = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(Z|[+-]\d{2}(?::?\d{2})?)$/;

function normaliseDateTime(text: string): string | undefined {
  const m = DATE_TIME_READ.exec(text);
  if (!m) return undefined;
  const offset = m[3];
  const hhmm = offset === 'Z' ? 'Z' : `${offset.slice(0, 3)}:${offset.length === 3 ? '00' : offset.slice(-2)}`;
  const canonical = `${m[1]}T${m[2]}${hhmm}`;
  return isDateTime(canonical) ? canonical : undefined;
}
