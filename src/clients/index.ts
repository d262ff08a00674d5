import type { Config } from '../config';
import type { GraphqlStep } from '../http/graphqlRoute';
import { clientCostPolicy, type ClientCostPolicy } from '../limits/costLimit';
import type { GatewayMetrics } from '../observability/metrics';
import type { RedisConnection } from '../redis/connection';
import { ClientBudgets } from './budgets';
import { ClientMetrics } from './clientMetrics';
import { loadClientsFile } from './clientsFile';
import { clientPolicyStep, trustedDocumentsOnlyStep } from './clientPolicyStep';

/** The client policies of one gateway: the /graphql steps and the Apollo plugin, sharing the request's record. */
export interface ClientPolicies {
  /** Outermost: the client's identity and budgets. */
  step: GraphqlStep;
  /** After the trusted-documents step: clients bound to trusted documents came by a manifest id, not an APQ hash. */
  trustedOnlyStep: GraphqlStep;
  /** What the plugin does, for operations run without Apollo (src/execution/compiledPath.ts). */
  cost: ClientCostPolicy;
}

/** Without CLIENTS_FILE: undefined, and every caller is served as before. The file is read and validated here, at start. */
export function createClientPolicies(config: Config, deps: { metrics: GatewayMetrics; redis?: RedisConnection }): ClientPolicies | undefined {
  if (!config.clients.file) return undefined;
  const directory = loadClientsFile(config.clients.file);
  const bound = directory.all.filter((c) => c.policy.trustedDocumentsOnly).map((c) => c.name);
  if (bound.length > 0 && config.trustedDocuments.mode === 'off') {
    // Every request of theirs would be refused: say so at start instead.
    throw new Error(`CLIENTS_FILE: ${bound.join(', ')} may only send trusted documents, but TRUSTED_DOCUMENTS_MODE is off`);
  }
  const metrics = new ClientMetrics(deps.metrics.registry);
  const budgets = new ClientBudgets({ clients: directory.all, redis: deps.redis, localShareOf: config.clients.localShareOf });
  const cost = clientCostPolicy({ metrics });
  return {
    step: clientPolicyStep({ directory, budgets, metrics }),
    trustedOnlyStep: trustedDocumentsOnlyStep(),
    cost,
  };
}
