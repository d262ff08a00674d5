import { createHash } from 'node:crypto';
import type { ServiceName } from './upstreams/serviceName';

/**
 * The client headers each upstream owns (CONTRACT.md, "Credentials"): a header is forwarded only to its own
 * service, with the name the service's document spells. Lookup is case-insensitive, as HTTP header names are.
 */
export const CREDENTIAL_HEADERS: Readonly<Record<ServiceName, readonly string[]>> = {
  reservation: ['Reservation-Access-Token', 'Authorization', 'EMPLOYEE_TOKEN', 'STORE_PIN_CODE', 'SLUG_NAME'],
  pos: ['Pos-Access-Token'],
};

/** Every credential header name, lower-cased: for log redaction and the no-forwarding rule. */
export const ALL_CREDENTIAL_HEADERS: readonly string[] = Object.values(CREDENTIAL_HEADERS)
  .flat()
  .map((h) => h.toLowerCase());

/** One service's credentials from one client request, keyed by lower-cased header name. */
export class ServiceCredentials {
  private constructor(private readonly values: ReadonlyMap<string, string>) {}

  /** Picks the service's headers out of the request's headers (a `get` by lower-cased name). */
  static from(service: ServiceName, get: (lowerName: string) => string | undefined): ServiceCredentials {
    const values = new Map<string, string>();
    for (const name of CREDENTIAL_HEADERS[service]) {
      const value = get(name.toLowerCase());
      if (value !== undefined && value !== '') values.set(name.toLowerCase(), value);
    }
    return new ServiceCredentials(values);
  }

  /** The lower-cased names of the given headers that this request did not send. */
  missing(required: readonly string[]): string[] {
    return required.filter((name) => !this.values.has(name));
  }

  /** The headers to send upstream, spelled as the service's document spells them. */
  headers(service: ServiceName): Record<string, string> {
    const out: Record<string, string> = {};
    for (const name of CREDENTIAL_HEADERS[service]) {
      const value = this.values.get(name.toLowerCase());
      if (value !== undefined) out[name] = value;
    }
    return out;
  }

  /** The secret values themselves, so error texts can be checked never to carry them. */
  secrets(): string[] {
    return [...this.values.values()];
  }
}

/**
 * A one-way name for the caller: SHA-256 (hex) over every credential header the request would send upstream,
 * both services' together, in a fixed order. Policies kept per caller (idempotency records, budgets per venue)
 * key on this, so one venue's state can never be reached with another venue's credentials, and the credentials
 * themselves are never stored. A request without any credential hashes to the same value as every other such one.
 */
export function callerHash(get: (lowerName: string) => string | undefined): string {
  const hash = createHash('sha256');
  for (const name of ALL_CREDENTIAL_HEADERS) {
    const value = get(name);
    // Length-prefixed, so no two different sets of values can produce the same input.
    hash.update(`${name.length}:${name}=${value === undefined ? '-' : `${value.length}:${value}`};`);
  }
  return hash.digest('hex');
}
