import { SANDBOX_CREDENTIALS, type Sandbox } from '../../src/sandbox';

export type Venue = keyof typeof SANDBOX_CREDENTIALS;

/**
 * The instant the sandbox tests' sample is built around and their services' clock reads, so they pass at any hour:
 * 00:05 venue time (21:05 UTC), the venue's first hour after midnight, when "today" has the fewest past bookings.
 */
export const SAMPLE_NOW = new Date('2026-11-25T21:05:00Z');

/**
 * Instants the sample must hang together at, whatever the hour a run starts: a Saturday morning, a Saturday just after
 * midnight (venue time), a Monday evening, a Wednesday at noon, New Year's Eve, 00:05 venue time (21:05 UTC) and
 * 23:59 venue time on a Saturday.
 */
export const SAMPLE_NOWS = [
  '2026-11-21T07:00:00Z', '2026-11-27T22:30:00Z', '2026-11-23T17:00:00Z', '2027-07-21T09:00:00Z', '2026-12-31T21:59:00Z',
  SAMPLE_NOW.toISOString(), '2026-11-28T20:59:00Z',
];

export interface Answer {
  status: number;
  contentType: string | null;
  text: string;
  /** The parsed body; undefined when the body is empty. */
  json: any;
}

/** One HTTP call to a sandbox service, answered whole. */
export async function call(
  sandbox: Sandbox, service: 'reservation' | 'pos', method: string, path: string,
  init: { headers?: Record<string, string>; body?: unknown; rawBody?: string } = {},
): Promise<Answer> {
  const base = service === 'reservation' ? sandbox.reservationUrl : sandbox.posUrl;
  const hasBody = init.body !== undefined || init.rawBody !== undefined;
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { ...(hasBody ? { 'content-type': 'application/json' } : {}), ...init.headers },
    ...(hasBody ? { body: init.rawBody ?? JSON.stringify(init.body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, contentType: response.headers.get('content-type'), text, json: text === '' ? undefined : JSON.parse(text) };
}

export const reservationToken = (venue: Venue) => ({ 'Reservation-Access-Token': SANDBOX_CREDENTIALS[venue]['Reservation-Access-Token'] });
export const posToken = (venue: Venue) => ({ 'Pos-Access-Token': SANDBOX_CREDENTIALS[venue]['Pos-Access-Token'] });
/** The four API-key headers as the reservation service reads them: under their documented (underscore) names. */
export const apiKey = (venue: Venue) => {
  const { Authorization, 'Employee-Token': EMPLOYEE_TOKEN, 'Store-Pin-Code': STORE_PIN_CODE, 'Slug-Name': SLUG_NAME } = SANDBOX_CREDENTIALS[venue];
  return { Authorization, EMPLOYEE_TOKEN, STORE_PIN_CODE, SLUG_NAME };
};

export const INVALID_TOKEN = { errors: [{ message: 'Invalid Token', code: 960 }] };
