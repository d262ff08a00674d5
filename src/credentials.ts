import { createHash } from 'node:crypto';
import type { ServiceName } from './errors/UpstreamError';

/**
 * The client headers each upstream owns (CONTRACT.md, "Credentials"): a header is forwarded only to its own
 * service, with the name the service's document spells. Lookup is case-insensitive, as HTTP header names are.
 */
export const CREDENTIAL_HEADERS: Readonly<Record<ServiceName, readonly string[]>> = {
  reservation: ['Reservation-Access-Token', 'Authorization', 'EMPLOYEE_TOKEN', 'STORE_PIN_CODE', 'SLUG_NAME'],
  pos: ['Pos-Access-Token'],
};

/**
 * The other spelling a client may send a credential header under, by its documented name (CONTRACT.md,
 * "Credentials"): many proxies, NGINX and so ingress-nginx by default, drop header names with an underscore. Upstream
 * the value always goes under its documented name.
 */
export const OTHER_SPELLINGS: Readonly<Record<string, string>> = {
  EMPLOYEE_TOKEN: 'Employee-Token',
  STORE_PIN_CODE: 'Store-Pin-Code',
  SLUG_NAME: 'Slug-Name',
};

/** The documented names, lower-cased, in a fixed order: what is forwarded and what callerHash sees. */
const DOCUMENTED_HEADERS: readonly string[] = Object.values(CREDENTIAL_HEADERS)
  .flat()
  .map((h) => h.toLowerCase());

/** Lower-cased documented name → lower-cased other spelling. */
const OTHER_SPELLING = new Map(Object.entries(OTHER_SPELLINGS).map(([documented, other]) => [documented.toLowerCase(), other.toLowerCase()]));

/** A credential header's lower-cased documented name with its other spelling, if it has one: `employee_token (or Employee-Token)`. */
export function spellingsOf(lowerName: string): string {
  const other = Object.entries(OTHER_SPELLINGS).find(([documented]) => documented.toLowerCase() === lowerName)?.[1];
  return other === undefined ? lowerName : `${lowerName} (or ${other})`;
}

/** Every credential header name a client may send, both spellings, lower-cased: for log redaction and the no-forwarding rule. */
export const ALL_CREDENTIAL_HEADERS: readonly string[] = [...DOCUMENTED_HEADERS, ...OTHER_SPELLING.values()];

/** A header's value as the client sent it; an empty value counts as not sent. */
function sent(get: (lowerName: string) => string | undefined, lowerName: string): string | undefined {
  const value = get(lowerName);
  return value === '' ? undefined : value;
}

/**
 * A credential by its lower-cased documented name, under whichever spelling the client sent it. When both came with
 * different values the documented one is taken here, but the route refuses such a request before it gets this far
 * (credentialSpellingConflict).
 */
function credentialValue(get: (lowerName: string) => string | undefined, lowerName: string): string | undefined {
  const other = OTHER_SPELLING.get(lowerName);
  return sent(get, lowerName) ?? (other === undefined ? undefined : sent(get, other));
}

/**
 * What is wrong when a request sent a credential header under both spellings with different values, naming both
 * spellings (never a value); undefined when it did not. Such a request is refused with BAD_USER_INPUT before any
 * upstream call (CONTRACT.md, "Credentials"); the same value under both spellings is no conflict.
 */
export function credentialSpellingConflict(get: (lowerName: string) => string | undefined): string | undefined {
  const conflicting = Object.entries(OTHER_SPELLINGS).filter(([documented, other]) => {
    const a = sent(get, documented.toLowerCase());
    const b = sent(get, other.toLowerCase());
    return a !== undefined && b !== undefined && a !== b;
  });
  if (conflicting.length === 0) return undefined;
  const pairs = conflicting.map(([documented, other]) => `${documented} and ${other}`).join(', ');
  return `Each credential header must be sent under one spelling, or both with the same value: ${pairs} differ`;
}

/** One service's credentials from one client request, keyed by lower-cased header name. */
export class ServiceCredentials {
  private constructor(private readonly values: ReadonlyMap<string, string>) {}

  /** Picks the service's headers out of the request's headers (a `get` by lower-cased name), under either spelling. */
  static from(service: ServiceName, get: (lowerName: string) => string | undefined): ServiceCredentials {
    const values = new Map<string, string>();
    for (const name of CREDENTIAL_HEADERS[service]) {
      const value = credentialValue(get, name.toLowerCase());
      if (value !== undefined) values.set(name.toLowerCase(), value);
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
 * both services' together, in a fixed order, each under its documented name (so either spelling hashes alike).
 * Policies kept per caller (idempotency records, budgets per venue) key on this, so one venue's state can never be
 * reached with another venue's credentials, and the credentials themselves are never stored. A request without any
 * credential (or with empty ones) hashes to the same value as every other such one.
 */
export function callerHash(get: (lowerName: string) => string | undefined): string {
  const hash = createHash('sha256');
  for (const name of DOCUMENTED_HEADERS) {
    const value = credentialValue(get, name);
    // Length-prefixed, so no two different sets of values can produce the same input.
    hash.update(`${name.length}:${name}=${value === undefined ? '-' : `${value.length}:${value}`};`);
  }
  return hash.digest('hex');
}
