import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ServiceName } from '../errors/UpstreamError';
import type { UpstreamCallRecord } from '../upstreams/http';
import type { CircuitStateName } from '../upstreams/resilience';
import type { ReadSource } from '../upstreams/sharedReads';

/** What the step did with a request: the `idempotency` field of its log line and the metric's `outcome` label. */
export type IdempotencyOutcome =
  | 'stored' // ran; its response is kept for replays
  | 'released' // refused before any upstream call: nothing kept, the key is free again
  | 'replayed'
  | 'in_use' // 409
  | 'reused' // 422
  | 'unavailable' // 503: the store cannot be reached
  | 'unguarded' // the store cannot be reached and IDEMPOTENCY_FAIL_OPEN let the mutation run without the guarantee
  | 'store_failed' // ran, and its response could not be stored (tablegraph_idempotency_store_failures_total says why)
  | 'not_durable' // ran; its response is stored on the Redis primary, but no replica acknowledged it in time
  | 'outcome_unknown' // 409: a request with the key may have reached the upstream and its answer was never stored
  | 'too_large' // ran; its response was over the size bound and a 422 is kept in its place (counted besides `stored`)
  | 'invalid' // a malformed key or a batch with a key: 400
  | 'missing' // IDEMPOTENCY_REQUIRED mutation without a key: 400
  | 'evicted'; // the in-memory store dropped a stored response before its time to make room

/** Why an idempotency record was not written as it must be: the `reason` of tablegraph_idempotency_store_failures_total. */
export type IdempotencyStoreFailure = 'lease_lost' | 'not_durable' | 'unavailable';

/** How one GraphQL operation ended: no error; data with errors; or errors only. */
export type OperationOutcome = 'success' | 'partial' | 'error';

/** Seconds: from a cached-connection GET (a few ms) to the longest upstream time budgets. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The gauge's value for each circuit state (alert on > 0). */
const CIRCUIT_STATE_VALUES: Readonly<Record<CircuitStateName, number>> = { closed: 0, 'half-open': 1, open: 2 };

export interface GatewayMetricsOptions {
  /** Node's process metrics (CPU, memory, event loop lag, GC, handles). Default true. */
  defaultMetrics?: boolean;
  /** Distinct operation names kept as labels (they come from clients); past them, `__other__`. Default 200. */
  maxOperationLabels?: number;
}

/** One gateway's metrics, in a registry of its own so gateways in one process (the tests) do not mix their counts. */
export class GatewayMetrics {
  readonly registry = new Registry();
  private readonly registers = [this.registry];
  private readonly operations = new Counter({
    name: 'tablegraph_graphql_requests_total',
    help: 'GraphQL operations by operation name and outcome (success, partial, error)',
    labelNames: ['operation', 'outcome'],
    registers: this.registers,
  });
  private readonly operationSeconds = new Histogram({
    name: 'tablegraph_graphql_request_duration_seconds',
    help: 'Time from receiving a GraphQL operation to sending its response',
    labelNames: ['operation'],
    buckets: DURATION_BUCKETS,
    registers: this.registers,
  });
  private readonly upstreamCalls = new Counter({
    name: 'tablegraph_upstream_calls_total',
    help: 'Upstream HTTP calls by service, method, route template, HTTP status (none without an answer) and outcome',
    labelNames: ['service', 'method', 'route', 'status', 'outcome'],
    registers: this.registers,
  });
  private readonly upstreamSeconds = new Histogram({
    name: 'tablegraph_upstream_call_duration_seconds',
    help: 'Duration of upstream HTTP calls, body included',
    labelNames: ['service', 'method', 'route'],
    buckets: DURATION_BUCKETS,
    registers: this.registers,
  });
  private readonly upstreamReads = new Counter({
    name: 'tablegraph_upstream_reads_total',
    help: 'Upstream GETs the requests needed, by service, route template and where the answer came from: upstream (a call), joined (another request\'s call in flight) or cache (a kept answer)',
    labelNames: ['service', 'route', 'source'],
    registers: this.registers,
  });
  private readonly loaderBatches = new Histogram({
    name: 'tablegraph_dataloader_batch_size',
    help: 'Keys per DataLoader batch',
    labelNames: ['loader'],
    // One check per reservation of a page, pages up to 100.
    buckets: [1, 2, 5, 10, 20, 50, 100],
    registers: this.registers,
  });
  private readonly circuitState = new Gauge({
    name: 'tablegraph_upstream_circuit_state',
    help: 'Circuit breaker state per upstream: 0 closed, 1 half-open, 2 open',
    labelNames: ['service'],
    registers: this.registers,
  });
  private readonly idempotency = new Counter({
    name: 'tablegraph_idempotency_requests_total',
    help: 'Mutations with an Idempotency-Key (and idempotency refusals) by what the gateway did: stored, replayed, in_use, reused, unavailable, …',
    labelNames: ['outcome'],
    registers: this.registers,
  });
  private readonly idempotencyStoreFailures = new Counter({
    name: 'tablegraph_idempotency_store_failures_total',
    help: 'Idempotency records that could not be written as they must: lease_lost (a completion found its lease gone), not_durable (no Redis replica acknowledged it), unavailable (the store failed)',
    labelNames: ['reason'],
    registers: this.registers,
  });
  private readonly deviations = new Counter({
    name: 'tablegraph_upstream_deviations_total',
    help: 'Upstream answers that differ from the documents, by service, route template, upstream field path (no list indexes) and what came (JSON type or reason)',
    labelNames: ['service', 'route', 'field', 'received'],
    registers: this.registers,
  });
  private readonly operationLabels = new Set<string>();
  private readonly maxOperationLabels: number;

  constructor(options: GatewayMetricsOptions = {}) {
    this.maxOperationLabels = options.maxOperationLabels ?? 200;
    for (const service of ['reservation', 'pos'] as const) this.setCircuitState(service, 'closed');
    if (options.defaultMetrics !== false) collectDefaultMetrics({ register: this.registry });
  }

  observeOperation(operationName: string | null | undefined, outcome: OperationOutcome, seconds: number): void {
    const operation = this.operationLabel(operationName);
    this.operations.inc({ operation, outcome });
    this.operationSeconds.observe({ operation }, seconds);
  }

  observeUpstreamCall(record: UpstreamCallRecord): void {
    const { service, method, route } = record;
    const status = record.status === undefined ? 'none' : String(record.status);
    this.upstreamCalls.inc({ service, method, route, status, outcome: record.error ? record.error.failure : 'success' });
    this.upstreamSeconds.observe({ service, method, route }, record.durationMs / 1000);
  }

  countRead(service: ServiceName, route: string, source: ReadSource): void {
    this.upstreamReads.inc({ service, route, source });
  }

  observeLoaderBatch(loader: string, size: number): void {
    this.loaderBatches.observe({ loader }, size);
  }

  /** Keys never become labels. */
  observeIdempotency(outcome: IdempotencyOutcome): void {
    this.idempotency.inc({ outcome });
  }

  /** A record not written as it must be; never silent (CONTRACT.md, Idempotency-Key). */
  countIdempotencyStoreFailure(reason: IdempotencyStoreFailure): void {
    this.idempotencyStoreFailures.inc({ reason });
  }

  countDeviation({ service, route, field, received }: { service: ServiceName; route: string; field: string; received: string }): void {
    this.deviations.inc({ service, route, field, received });
  }

  setCircuitState(service: ServiceName, state: CircuitStateName): void {
    this.circuitState.set({ service }, CIRCUIT_STATE_VALUES[state]);
  }

  async render(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }

  private operationLabel(name: string | null | undefined): string {
    if (!name) return 'anonymous';
    if (this.operationLabels.has(name)) return name;
    if (this.operationLabels.size >= this.maxOperationLabels) return '__other__';
    this.operationLabels.add(name);
    return name;
  }
}
