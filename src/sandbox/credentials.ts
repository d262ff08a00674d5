import type { IncomingHttpHeaders } from 'node:http';
import type { TenantKey } from './records';

/**
 * The headers a client sends for each sample venue. Two tenants, so tests can
 * prove credentials never cross between concurrent requests.
 */
export const SANDBOX_CREDENTIALS = {
  laTerrazza: {
    'Reservation-Access-Token': 'sandbox-res-token-la-terrazza',
    Authorization: 'Bearer sandbox-api-key-la-terrazza',
    EMPLOYEE_TOKEN: 'sandbox-employee-token-la-terrazza',
    STORE_PIN_CODE: '4821',
    SLUG_NAME: 'la-terrazza',
    'Pos-Access-Token': 'sandbox-pos-token-la-terrazza',
  },
  bistroNord: {
    'Reservation-Access-Token': 'sandbox-res-token-bistro-nord',
    Authorization: 'Bearer sandbox-api-key-bistro-nord',
    EMPLOYEE_TOKEN: 'sandbox-employee-token-bistro-nord',
    STORE_PIN_CODE: '7310',
    SLUG_NAME: 'bistro-nord',
    'Pos-Access-Token': 'sandbox-pos-token-bistro-nord',
  },
} as const satisfies Record<TenantKey, Record<string, string>>;

type CredentialName = keyof (typeof SANDBOX_CREDENTIALS)['laTerrazza'];

/** The four API-key headers of the off-day and calendar operations; how they combine is not shown, the sandbox wants all four. */
const API_KEY_HEADERS: readonly CredentialName[] = ['Authorization', 'EMPLOYEE_TOKEN', 'STORE_PIN_CODE', 'SLUG_NAME'];
const TENANTS = Object.keys(SANDBOX_CREDENTIALS) as TenantKey[];

/** The tenant whose every listed header matches; header names are case-insensitive (node lower-cases them). */
function tenantMatching(headers: IncomingHttpHeaders, names: readonly CredentialName[]): TenantKey | undefined {
  return TENANTS.find((tenant) => names.every((name) => headers[name.toLowerCase()] === SANDBOX_CREDENTIALS[tenant][name]));
}

export function tenantByReservationToken(headers: IncomingHttpHeaders): TenantKey | undefined {
  return tenantMatching(headers, ['Reservation-Access-Token']);
}

export function tenantByApiKey(headers: IncomingHttpHeaders): TenantKey | undefined {
  return tenantMatching(headers, API_KEY_HEADERS);
}

export function tenantByPosToken(headers: IncomingHttpHeaders): TenantKey | undefined {
  return tenantMatching(headers, ['Pos-Access-Token']);
}
