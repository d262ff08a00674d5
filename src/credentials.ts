import { sha256Hex } from './sha256';
import type { ServiceName } from './errors/UpstreamError';

type Header = (lowerName: string) => string | undefined;

/** The client headers each upstream owns (CONTRACT.md, "Credentials"), forwarded only to it, spelled as its document spells them. */
export const CREDENTIAL_HEADERS: Readonly<Record<ServiceName, readonly string[]>> = {
  reservation: ['Reservation-Access-Token', 'Authorization', 'EMPLOYEE_TOKEN', 'STORE_PIN_CODE', 'SLUG_NAME'],
  pos: ['Pos-Access-Token'],
};

/**
 * The other spelling a client may send a credential header under, by its documented name: many proxies (NGINX,
 * so ingress-nginx, by default) drop header names with an underscore. Upstream it always goes under its documented name.
 */
export const OTHER_SPELLINGS: Readonly<Record<string, string>> = {
  EMPLOYEE_TOKEN: 'Employee-Token',
  STORE_PIN_CODE: 'Store-Pin-Code',
  SLUG_NAME: 'Slug-Name',
};

/** The documented names, lower-cased, in a fixed order: what is forwarded and what callerHash sees. */
const DOCUMENTED_HEADERS = Object.values(CREDENTIAL_HEADERS)
  .flat()
  .map((h) => h.toLowerCase());

/** Lower-cased documented name → lower-cased other spelling. */
const OTHER_SPELLING = new Map(Object.entries(OTHER_SPELLINGS).map(([documented, other]) => [documented.toLowerCase(), other.toLowerCase()]));

/** Every credential header name a client may send, both spellings, lower-cased: for log redaction and the no-forwarding rule. */
export const ALL_CREDENTIAL_HEADERS: readonly string[] = [...DOCUMENTED_HEADERS, ...OTHER_SPELLING.values()];

/** A credential header's lower-cased documented name with its other spelling, if it has one: `employee_token (or Employee-Token)`. */
export function spellingsOf(lowerName: string): string {
  const other = OTHER_SPELLINGS[lowerName.toUpperCase()] as string | undefined;
  return other === undefined ? lowerName : `${lowerName} (or ${other})`;
}

/** A header's value as the client sent it; an empty value counts as not sent. */
const sent = (get: Header, lowerName: string): string | undefined => get(lowerName) || undefined;

/** A credential by its lower-cased documented name, under either spelling (conflicting ones are refused earlier). */
function credentialValue(get: Header, lowerName: string): string | undefined {
  const other = OTHER_SPELLING.get(lowerName);
  return sent(get, lowerName) ?? (other === undefined ? undefined : sent(get, other));
}

/** A credential header sent under both spellings with different values, named (never its value); the same value is no conflict. */
export function credentialSpellingConflict(get: Header): string | undefined {
  const pairs = Object.entries(OTHER_SPELLINGS).filter(([documented, other]) => {
    const a = sent(get, documented.toLowerCase());
    const b = sent(get, other.toLowerCase());
    return a !== undefined && b !== undefined && a !== b;
  });
  if (pairs.length === 0) return undefined;
  return `Each credential header must be sent under one spelling, or both with the same value: ${pairs.map(([d, o]) => `${d} and ${o}`).join(', ')} differ`;
}

/** One service's credentials from one client request, keyed by lower-cased header name. */
export class ServiceCredentials {
  private constructor(private readonly values: ReadonlyMap<string, string>) {}

  static from(service: ServiceName, get: Header): ServiceCredentials {
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
 * A one-way name for the caller: SHA-256 over every credential header it would send upstream, in a fixed order, under
 * its documented name. State kept per caller keys on this, so no venue reaches another's and no credential is stored.
 */
export function callerHash(get: Header): string {
  let text = '';
  for (const name of DOCUMENTED_HEADERS) {
    const value = credentialValue(get, name);
    // Length-prefixed, so no two different sets of values can produce the same input.
    text += `${name.length}:${name}=${value === undefined ? '-' : `${value.length}:${value}`};`;
  }
  return sha256Hex(text);
}
