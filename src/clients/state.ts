import type { ClientDecision } from './clientMetrics';
import type { KnownClient } from './clientsFile';

/**
 * One request's client, shared by the client policy step (around Apollo) and the cost plugin (inside it): the
 * step identifies the client and takes its budgets; the plugin refuses by cost or introspection, puts the
 * estimate on the log line, and records the upstream calls made, which the step then charges.
 */
export interface ClientRequestState {
  readonly client: KnownClient;
  /** The request's log-line fields (never a secret; the client's name, never its key). */
  readonly logFields: Record<string, string>;
  /** Upstream calls the request made, set after execution. */
  actualUpstreamCalls: number;
  /** A refusal decided inside Apollo, for the metrics. */
  refusedBy?: Extract<ClientDecision, 'cost' | 'introspection' | 'trusted_documents'>;
}
