import { randomUUID } from 'node:crypto';
import type { KnownClient } from '../clients/clientsFile';
import type { ClientDecision } from '../clients/clientMetrics';
import type { IdempotencyOutcome } from '../idempotency/outcome';
import type { CostEstimate } from '../limits/costEstimate';
import type { OperationOutcome } from '../observability/metrics';
import type { UpstreamCallRecord } from '../upstreams/http';

/** How one operation of the request ended, as the log line, the metrics and the span report it. */
export interface OperationRecord {
  operationName: string | null;
  /** `query` or `mutation`, once the operation was resolved. */
  type?: string;
  outcome: OperationOutcome;
  errorCodes: string[];
  durationMs: number;
}

/** Who called, as the clients file names them (src/clients). */
export interface ClientRecord {
  /** The client's name; `unknown` or `anonymous` when refused as nobody the file knows. */
  name: string;
  audience?: string;
  version?: string;
  /** The known client and its policy; absent for a refused caller. */
  known?: KnownClient;
  /** Upstream calls the request made, set as execution ends (charged to the client's budget). */
  actualUpstreamCalls?: number;
  /** A refusal decided after the client step let the request in, for the client metrics. */
  refusedBy?: Extract<ClientDecision, 'cost' | 'introspection' | 'trusted_documents'>;
}

/**
 * Everything one GraphQL request did, typed: filled by the steps and the executor, read by later decisions, and
 * written once by the route as the request's log line, metrics and span end (apollo-server's requestContext is the
 * model). Never holds a secret: the client's name, never its key; the idempotency key only as a scoped hash.
 */
export interface RequestRecord {
  readonly requestId: string;
  /** `performance.now()` when the request arrived. */
  readonly started: number;
  client?: ClientRecord;
  /** How the documents were named: `trusted` only when every operation came by a trusted manifest id. */
  document?: { trusted: boolean; hashes: string[] };
  idempotency?: { scopedKey?: string; outcome?: IdempotencyOutcome };
  /** The estimate the client cost policy admitted the operation with. */
  cost?: CostEstimate;
  /** Set when the compiled executor ran the request (src/execution/compiledPath.ts). */
  execution?: 'compiled';
  /** Every upstream call made for this HTTP request (all operations of a batch), as the transports report them. */
  readonly upstreamCalls: UpstreamCallRecord[];
  /** The operations executed (Apollo's or the compiled executor's), in the order they ended. */
  readonly operations: OperationRecord[];
}

/** A request id from the client is kept only when it is well-formed; otherwise one is made. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A new record for one request, from its `x-request-id` header (for any transport: HTTP or a websocket's init). */
export function createRequestRecord(requestIdHeader: string | undefined, started = performance.now()): RequestRecord {
  const requestId = requestIdHeader && REQUEST_ID.test(requestIdHeader) ? requestIdHeader : randomUUID();
  return { requestId, started, upstreamCalls: [], operations: [] };
}

/** The request's log fields besides the outcome: what the record says of the client, document, idempotency and cost. */
export function recordLogFields(record: RequestRecord): Record<string, string> {
  const fields: Record<string, string> = {};
  const { client, document, idempotency, cost } = record;
  if (client) {
    fields.client = client.name;
    if (client.audience) fields.clientAudience = client.audience;
    if (client.version) fields.clientVersion = client.version;
  }
  if (document) {
    fields.document = document.trusted ? 'trusted' : 'untrusted';
    if (document.hashes.length > 0) fields.documentHash = document.hashes.join(',');
  }
  if (idempotency) {
    if (idempotency.scopedKey) fields.idempotencyKey = idempotency.scopedKey.slice(0, 16);
    if (idempotency.outcome) fields.idempotency = idempotency.outcome;
  }
  if (cost) {
    fields.estimatedCost = String(cost.cost);
    fields.estimatedUpstreamCalls = String(cost.upstreamCalls);
  }
  if (client?.actualUpstreamCalls !== undefined) fields.actualUpstreamCalls = String(client.actualUpstreamCalls);
  if (record.execution) fields.execution = record.execution;
  return fields;
}
