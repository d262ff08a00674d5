import { Counter, Histogram, type Registry } from 'prom-client';

/** What the client policies decided for a request: served, or refused and why. */
export type ClientDecision = 'allowed' | 'unauthenticated' | 'rate_limited' | 'upstream_budget' | 'cost' | 'trusted_documents' | 'introspection';

const COST_BUCKETS = [10, 50, 100, 250, 500, 1000, 2500, 5000, 10000];

/** Per-client metrics, by client name (from the clients file; never a key): a bounded label. */
export class ClientMetrics {
  private readonly decisions: Counter<'client' | 'decision'>;
  private readonly estimatedCost: Histogram<'client'>;
  private readonly estimatedCalls: Histogram<'client'>;
  private readonly actualCost: Histogram<'client'>;
  private readonly upstreamCalls: Counter<'client'>;

  constructor(registry: Registry) {
    const registers = [registry];
    const histogram = (name: string, help: string, buckets: number[]) => new Histogram({ name, help, labelNames: ['client'], buckets, registers });
    this.decisions = new Counter({
      name: 'tablegraph_client_requests_total',
      help: 'GraphQL requests per client and decision (allowed, or the reason of the refusal)',
      labelNames: ['client', 'decision'],
      registers,
    });
    this.estimatedCost = histogram('tablegraph_client_estimated_cost', 'Estimated cost of each operation (schema cost directives), per client', COST_BUCKETS);
    this.estimatedCalls = histogram('tablegraph_client_estimated_upstream_calls', 'Estimated upstream calls of each operation, per client', [1, 2, 5, 10, 25, 50, 100, 150]);
    this.actualCost = histogram('tablegraph_client_actual_cost', 'Cost of what each operation actually returned (same weights, real list lengths), per client', COST_BUCKETS);
    this.upstreamCalls = new Counter({
      name: 'tablegraph_client_upstream_calls_total',
      help: 'Upstream calls actually made, per client (what the per-minute budget counts)',
      labelNames: ['client'],
      registers,
    });
  }

  decided(client: string, decision: ClientDecision): void {
    this.decisions.inc({ client, decision });
  }

  estimated(client: string, cost: number, upstreamCalls: number): void {
    this.estimatedCost.observe({ client }, cost);
    this.estimatedCalls.observe({ client }, upstreamCalls);
  }

  actual(client: string, cost: number): void {
    this.actualCost.observe({ client }, cost);
  }

  called(client: string, upstreamCalls: number): void {
    if (upstreamCalls > 0) this.upstreamCalls.inc({ client }, upstreamCalls);
  }
}
