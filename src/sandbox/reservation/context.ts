import type { SandboxReply } from '../http';
import type { TenantState } from '../records';

/** What an endpoint of the reservation service gets once the caller's tenant is known. */
export interface EndpointContext {
  tenant: TenantState;
  /** The JSON body; {} when none was sent. */
  body: Record<string, unknown>;
  query: URLSearchParams;
  /** Clock of created_at on records made through the API. */
  clock: () => Date;
  /** Ids of records made through the API (random, unlike the sample's). */
  newId: () => string;
}

/** A checked input value, or the error reply that explains why it was refused. */
export type Checked<T> = { ok: true; value: T } | { ok: false; reply: SandboxReply };

export const accept = <T>(value: T): Checked<T> => ({ ok: true, value });
export const refuse = <T>(reply: SandboxReply): Checked<T> => ({ ok: false, reply });
