/**
 * Venue-local time. Assumption: the documents show dates "with a UTC offset"
 * but not which one; both sandbox venues run at +03:00 all year (no DST),
 * which keeps the arithmetic a fixed shift.
 */
export const VENUE_UTC_OFFSET = '+03:00';
const OFFSET_MS = 3 * 60 * 60 * 1000;

const LOCAL_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2})$/;
const LOCAL_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const LOCAL_TIME = /^(\d{2}):(\d{2})$/;

/** A venue-local wall-clock moment: date `YYYY-MM-DD`, time `HH:MM`. */
export interface LocalDateTime {
  date: string;
  time: string;
}

/** The venue-local calendar date of an instant. */
export function localDateOf(instant: Date): string {
  return new Date(instant.getTime() + OFFSET_MS).toISOString().slice(0, 10);
}

/** ISO 8601 with the venue offset, as the reservation service writes dates: 2026-11-21T19:30:00+03:00. */
export function toVenueIso(instant: Date): string {
  return `${new Date(instant.getTime() + OFFSET_MS).toISOString().slice(0, 19)}${VENUE_UTC_OFFSET}`;
}

export function localToInstant({ date, time }: LocalDateTime): Date {
  return new Date(`${date}T${time}:00${VENUE_UTC_OFFSET}`);
}

export function localToIso(local: LocalDateTime): string {
  return `${local.date}T${local.time}:00${VENUE_UTC_OFFSET}`;
}

export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

export function unixSeconds(instant: Date): number {
  return Math.floor(instant.getTime() / 1000);
}

/** Parses the request form `YYYY-MM-DD HH:MM`; undefined unless it is a real date and time. */
export function parseLocalDateTime(text: unknown): LocalDateTime | undefined {
  if (typeof text !== 'string') return undefined;
  const match = LOCAL_DATE_TIME.exec(text);
  if (!match) return undefined;
  const [date, time] = text.split(' ') as [string, string];
  return isLocalDate(date) && isLocalTime(time) ? { date, time } : undefined;
}

export function isLocalDate(text: unknown): text is string {
  if (typeof text !== 'string') return false;
  const match = LOCAL_DATE.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const parsed = new Date(Date.UTC(year, month - 1, day));
  return parsed.getUTCFullYear() === year && parsed.getUTCMonth() === month - 1 && parsed.getUTCDate() === day;
}

export function isLocalTime(text: unknown): text is string {
  if (typeof text !== 'string') return false;
  const match = LOCAL_TIME.exec(text);
  return match !== null && Number(match[1]) < 24 && Number(match[2]) < 60;
}
