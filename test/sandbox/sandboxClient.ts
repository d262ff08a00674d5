import { SANDBOX_CREDENTIALS, type Sandbox } from '../../src/sandbox';

export type Venue = keyof typeof SANDBOX_CREDENTIALS;

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
