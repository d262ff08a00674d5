import type { IncomingHttpHeaders } from 'node:http';
import { OTHER_SPELLINGS } from '../credentials';
import type { TenantKey } from './records';

/**
 * The headers a client sends the gateway for each sample venue, in the spellings that survive proxies
 * (`Employee-Token` rather than `EMPLOYEE_TOKEN`). Two tenants, so tests can prove credentials never cross between
 * concurrent requests.
 */
export const SANDBOX_CREDENTIALS = {
  laTerrazza: {
    'Reservation-Access-Token': 'sandbox-res-token-la-terrazza',
    Authorization: 'Bearer sandbox-api-key-la-terrazza',
    'Employee-Token': 'sandbox-employee-token-la-terrazza',
    'Store-Pin-Code': '4821',
    'Slug-Name': 'la-terrazza',
    'Pos-Access-Token': 'sandbox-pos-token-la-terrazza',
  },
  bistroNord: {
    'Reservation-Access-Token': 'sandbox-res-token-bistro-nord',
    Authorization: 'Bearer sandbox-api-key-bistro-nord',
    'Employee-Token': 'sandbox-employee-token-bistro-nord',
    'Store-Pin-Code': '7310',
    'Slug-Name': 'bistro-nord',
    'Pos-Access-Token': 'sandbox-pos-token-bistro-nord',
  },
} as const satisfies Record<TenantKey, Record<string, string>>;

type CredentialName = keyof (typeof SANDBOX_CREDENTIALS)['laTerrazza'];

/** The four API-key headers of the off-day and calendar operations; how they combine is not shown, the sandbox wants all four. */
const API_KEY_HEADERS: readonly CredentialName[] = ['Authorization', 'Employee-Token', 'Store-Pin-Code', 'Slug-Name'];
const TENANTS = Object.keys(SANDBOX_CREDENTIALS) as TenantKey[];

/** The name the reservation service's document gives a header the client may spell otherwise (`EMPLOYEE_TOKEN`). */
const DOCUMENTED_NAME = new Map(Object.entries(OTHER_SPELLINGS).map(([documented, other]) => [other, documented]));

/**
 * The tenant whose every listed header matches, read as the real services read them: under the documented name
 * only, whatever the client sent the gateway. Header names are case-insensitive (node lower-cases them).
 */
function tenantMatching(headers: IncomingHttpHeaders, names: readonly CredentialName[]): TenantKey | undefined {
  return TENANTS.find((tenant) => names.every((name) => headers[(DOCUMENTED_NAME.get(name) ?? name).toLowerCase()] === SANDBOX_CREDENTIALS[tenant][name]));
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

/**
 * The partner of the sandbox's clients file (src/sandbox/clients.yaml, which holds only its SHA-256), with small
 * limits so that its `RateLimit` headers and a 429 are easy to see; `npm run dev` prints it.
 */
export const SANDBOX_PARTNER = { name: 'demo-partner', key: 'sandbox-partner-key-demo' } as const;

/** The first-party app of the sandbox's clients file: what Apollo Client sends as `apollographql-client-name`. */
export const SANDBOX_FIRST_PARTY_APP = 'web';
