import { callerHash } from '../credentials';
import { sha256Hex } from '../sha256';
import type { ClientsDirectory, KnownClient } from './clientsFile';

/** Who is calling, and the key its budgets are kept under. */
export type Identification =
  | { known: true; client: KnownClient; budgetKey: string }
  | { known: false; reason: 'unknown_key' | 'anonymous_not_allowed' };

/**
 * A partner by `X-Api-Key` (looked up by its SHA-256, the only form the file holds; an unknown key is always
 * refused), else a first-party app by `apollographql-client-name`, else the file's anonymous policy when it has one.
 * A first-party name is a label anyone can send, not a credential: its budgets, and the anonymous ones, are kept
 * per venue too (callerHash: a one-way name of the caller's upstream credentials), so one venue never spends
 * another's. A partner's budget is the partner's, whatever venue it calls for.
 */
export function identify(directory: ClientsDirectory, header: (lowerName: string) => string | undefined): Identification {
  const key = header('x-api-key');
  if (key !== undefined && key !== '') {
    const partner = directory.byKeyHash.get(sha256Hex(key));
    return partner ? { known: true, client: partner, budgetKey: 'partner' } : { known: false, reason: 'unknown_key' };
  }
  const name = header('apollographql-client-name');
  const firstParty = name === undefined ? undefined : directory.firstParty.get(name);
  if (firstParty) return { known: true, client: firstParty, budgetKey: `venue:${callerHash(header)}` };
  if (directory.anonymous) return { known: true, client: directory.anonymous, budgetKey: `venue:${callerHash(header)}` };
  return { known: false, reason: 'anonymous_not_allowed' };
}

/** A client version for the log line: what Apollo Client sends, kept only when short and plain. */
export function clientVersionOf(header: (lowerName: string) => string | undefined): string | undefined {
  const version = header('apollographql-client-version');
  return version && /^[A-Za-z0-9._+-]{1,64}$/.test(version) ? version : undefined;
}
