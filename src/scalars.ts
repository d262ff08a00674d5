import { GraphQLScalarType, Kind, type ValueNode } from 'graphql';
import { ScalarParseError } from './errors/InputError';

// The contract's scalars. Input parsing throws ScalarParseError (BAD_USER_INPUT with the field's path, by
// formatError); serialisation refuses values that break the wire form, so a bad value never leaves looking valid.

const LOCAL_TIME = /^([01]\d|2[0-3]):([0-5]\d)$/;
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d+)?)?(Z|[+-]([01]\d|2[0-3]):?[0-5]\d)$/;

/** The wire form of a Decimal; the upstream schemas check money against it too, so what they pass can be served. */
export const DECIMAL_PATTERN = /^-?\d{1,15}(\.\d{1,6})?$/;

/** True when `YYYY-MM-DD` names a real calendar day (no 2026-02-30). */
export function isCalendarDate(text: string): boolean {
  return text.length === 10 && startsWithCalendarDate(text);
}

/**
 * True when `text` begins with a real calendar day `YYYY-MM-DD`. Read by character codes, without a regular
 * expression's match array or a Date: every date of every answer passes here (they were 8 KB of a request's garbage).
 */
function startsWithCalendarDate(text: string): boolean {
  if (text.charCodeAt(4) !== DASH || text.charCodeAt(7) !== DASH) return false;
  const y = digits(text, 0, 4);
  const mo = digits(text, 5, 2);
  const d = digits(text, 8, 2);
  return y >= 0 && mo >= 1 && mo <= 12 && d >= 1 && d <= daysInMonth(y, mo);
}

const DASH = 0x2d;
const ZERO = 0x30;

/** The number that `count` decimal digits at `from` spell, or -1 when one is not a digit (or missing). */
function digits(text: string, from: number, count: number): number {
  let value = 0;
  for (let i = from; i < from + count; i++) {
    const digit = text.charCodeAt(i) - ZERO;
    if (!(digit >= 0 && digit <= 9)) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/** True when `text` is the DateTime wire form naming an instant that exists (V8's Date.parse takes 2026-02-30). */
export function isDateTime(text: string): boolean {
  return DATE_TIME.test(text) && startsWithCalendarDate(text);
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** A scalar whose wire form is a string that `read` checks (and may rewrite); `read` answers undefined for a bad value. */
function checkedScalar(name: string, description: string, read: (value: unknown) => string | undefined, expected: string): GraphQLScalarType<string, string> {
  const parse = (value: unknown): string => {
    const parsed = read(value);
    if (parsed === undefined) throw new ScalarParseError(`${name} must be ${expected}; got ${JSON.stringify(value)}`);
    return parsed;
  };
  return new GraphQLScalarType<string, string>({
    name,
    description,
    serialize: (value) => {
      const text = read(value);
      if (text === undefined) throw new TypeError(`${name} cannot represent ${JSON.stringify(value)}`);
      return text;
    },
    parseValue: parse,
    // A non-string literal is reported as what the client wrote.
    parseLiteral: (ast: ValueNode) => parse(ast.kind === Kind.STRING ? ast.value : ast.kind === Kind.INT || ast.kind === Kind.FLOAT ? Number(ast.value) : ast.kind),
  });
}

/** A `read` for string-only scalars. */
const ofString = (check: (text: string) => string | undefined) => (value: unknown) => (typeof value === 'string' ? check(value) : undefined);

export const DateScalar = checkedScalar('Date', 'A calendar date, `YYYY-MM-DD`.', ofString((t) => (isCalendarDate(t) ? t : undefined)), 'a date YYYY-MM-DD');

export const LocalTimeScalar = checkedScalar('LocalTime', 'A venue-local time of day, `HH:MM`.', ofString((t) => (LOCAL_TIME.test(t) ? t : undefined)), 'a time HH:MM');

const T = 0x54;
const SPACE = 0x20;
const COLON = 0x3a;

/** Canonical form `YYYY-MM-DDTHH:MM`; `YYYY-MM-DD HH:MM` (the upstream form) is accepted too. */
export const LocalDateTimeScalar = checkedScalar(
  'LocalDateTime',
  'A venue-local date and time without an offset: `2026-11-21T19:30` (input also `2026-11-21 19:30`).',
  ofString((t) => {
    if (t.length !== 16 || !startsWithCalendarDate(t)) return undefined;
    const separator = t.charCodeAt(10);
    const hours = digits(t, 11, 2);
    const minutes = digits(t, 14, 2);
    if ((separator !== T && separator !== SPACE) || t.charCodeAt(13) !== COLON || hours < 0 || hours > 23 || minutes < 0 || minutes > 59) return undefined;
    // The canonical form (what the answers hold) is served as it came, not rebuilt.
    return separator === T ? t : `${t.slice(0, 10)}T${t.slice(11)}`;
  }),
  'a local date and time YYYY-MM-DDTHH:MM',
);

export const DateTimeScalar = checkedScalar(
  'DateTime',
  'An instant: ISO 8601 with a UTC offset, e.g. `2026-11-21T19:30:00+03:00`.',
  ofString((t) => (isDateTime(t) ? t : undefined)),
  'an ISO 8601 date-time with an offset',
);

/** Money: a string in output, never a float; a string or a number as input. */
export const DecimalScalar = checkedScalar('Decimal', 'A money amount as a string, e.g. `"125.50"`; as input also a number.', decimalText, 'a decimal number such as "125.50"');

/** A JS number is shown with at least two decimals (125.5 → "125.50"), as money is. */
function decimalText(value: unknown): string | undefined {
  if (typeof value === 'string') return DECIMAL_PATTERN.test(value) ? value : undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
  const text = String(value);
  if (!DECIMAL_PATTERN.test(text)) return undefined;
  const [whole, frac = ''] = text.split('.');
  return `${whole}.${frac.padEnd(2, '0')}`;
}

function jsonObject(value: unknown, Refusal: new (message: string) => Error): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Refusal('JSON must be an object');
  return value as Record<string, unknown>;
}

/** Free-form JSON objects (upstream `extras`), passed through. */
export const JSONScalar = new GraphQLScalarType<Record<string, unknown>, Record<string, unknown>>({
  name: 'JSON',
  description: 'A free-form JSON object.',
  serialize: (value) => jsonObject(value, TypeError),
  parseValue: (value) => jsonObject(value, ScalarParseError),
  parseLiteral: () => {
    throw new ScalarParseError('JSON input must be passed as a variable');
  },
});

/** The instants a DateTime can show: years 0000 to 9999 (a wider year has no four-digit form). */
const FIRST_INSTANT_MS = -62_167_219_200_000; // 0000-01-01T00:00:00Z
const LAST_INSTANT_MS = 253_402_300_799_999; // 9999-12-31T23:59:59.999Z

/** `00` to `99`. */
const TWO_DIGITS = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0'));

/** A POS integer timestamp as a DateTime in UTC (`+00:00`); undefined outside years 0000 to 9999, a bad value of its field. */
export function posTimestampToDateTime(value: number, unit: 's' | 'ms'): string | undefined {
  const ms = unit === 's' ? value * 1000 : value;
  if (!(ms >= FIRST_INSTANT_MS && ms <= LAST_INSTANT_MS)) return undefined;
  // The calendar day by arithmetic (H. Hinnant's days-to-civil), not `new Date(ms).toISOString()`: a day view shows
  // about 150 of these, and the Date took 1-2 µs each (docs/performance.md).
  // A fraction of a ms is cut toward zero first, as a Date does.
  const seconds = Math.floor(Math.trunc(ms) / 1000);
  const days = Math.floor(seconds / 86_400);
  const second = seconds - days * 86_400;
  const shifted = days + 719_468; // days from 0000-03-01, so a year's leap day is its last
  const era = Math.floor(shifted / 146_097);
  const dayOfEra = shifted - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthFromMarch = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthFromMarch + 2) / 5) + 1;
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  const clock = `${TWO_DIGITS[Math.floor(second / 3600)]}:${TWO_DIGITS[Math.floor(second / 60) % 60]}:${TWO_DIGITS[second % 60]}`;
  return `${TWO_DIGITS[Math.floor(year / 100)]}${TWO_DIGITS[year % 100]}-${TWO_DIGITS[month]}-${TWO_DIGITS[day]}T${clock}+00:00`;
}

/** The reservation service's request form of a local date and time: `YYYY-MM-DD HH:MM`. */
export function toUpstreamLocalDateTime(canonical: string): string {
  return canonical.replace('T', ' ');
}

/** The contract's output form of the upstream's `YYYY-MM-DD HH:MM`. */
export function fromUpstreamLocalDateTime(upstream: string | undefined): string | null {
  return upstream === undefined ? null : upstream.replace(' ', 'T');
}
