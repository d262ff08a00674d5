import { randomUUID } from 'node:crypto';
import type { KnownClient } from '../clients/clientsFile';
import type { ClientDecision } from '../clients/clientMetrics';
import type { IdempotencyOutcome } from '../idempotency/outcome';
import type { CostEstimate } from '../limits/costEstimate';
import type { OperationOutcome } from '../observability/metrics';
import type { UpstreamCallRecord } from '../upstreams/http';

/** How one operation of the request ended. */
export interface OperationRecord {
  operationName: string | null;
  /** `query` or `mutation`, once resolved. */
  type?: string;
  outcome: OperationOutcome;
  errorCodes: string[];
  durationMs: number;
}

/** Who called, as the clients file names them. */
export interface ClientRecord {
  /** The client's name; `unknown` or `anonymous` when refused as nobody the file knows. */
  name: string;
  audience?: string;
  version?: string;
  /** The known client and its policy; absent for a refused caller. */
  known?: KnownClient;
  /** Upstream calls the request made, charged to the client's budget as execution ends. */
  actualUpstreamCalls?: number;
  /** A refusal decided after the client step let the request in, for the client metrics. */
  refusedBy?: Extract<ClientDecision, 'cost' | 'introspection' | 'trusted_documents'>;
}

/**
 * Everything one GraphQL request did: filled by the steps and the executor, read by later decisions, written once by
 * the route. Never a secret: the client's name, never its key; the idempotency key only as a scoped hash.
 */
export interface RequestRecord {
  readonly requestId: string;
  /** `performance.now()` on arrival. */
  readonly started: number;
  client?: ClientRecord;
  /** How the documents were named: `trusted` only when every operation came by a trusted manifest id. */
  document?: { trusted: boolean; hashes: string[] };
  idempotency?: { scopedKey?: string; outcome?: IdempotencyOutcome };
  /** The estimate the client cost policy admitted the operation with. */
  cost?: CostEstimate;
  /** Set when the compiled executor ran the request. */
  execution?: 'compiled';
  /** Every upstream call made for this HTTP request (all operations of a batch). */
  readonly upstreamCalls: UpstreamCallRecord[];
  /** The operations executed (Apollo's or the compiled executor's), in the order they ended. */
  readonly operations: OperationRecord[];
}

/** A client's request id is kept only when it is well-formed. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A new record from the request's `x-request-id` (over HTTP or in a websocket's init). */
export function createRequestRecord(requestIdHeader: string | undefined): RequestRecord {
  const requestId = requestIdHeader && REQUEST_ID.test(requestIdHeader) ? requestIdHeader : randomUUID();
  return { requestId, started: performance.now(), upstreamCalls: [], operations: [] };
}

/** The request's log fields besides the outcome. */
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
