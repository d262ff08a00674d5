import { randomUUID } from 'node:crypto';
import type { IdempotencyOutcome, OperationOutcome } from '../observability/metrics';
import type { UpstreamCallRecord } from '../upstreams/http';

/** How the request reached the gateway: one answer over HTTP, or a stream over WebSocket, SSE or multipart HTTP. */
export type Transport = 'http' | 'ws' | 'sse' | 'multipart';

/** How one operation of the request ended. */
export interface OperationRecord {
  operationName: string | null;
  /** `query` or `mutation`, once resolved. */
  type?: string;
  outcome: OperationOutcome;
  errorCodes: string[];
  durationMs: number;
}

/** What one client may do (docs/clients.md, "Client limits"), as src/clients/clientsFile.ts reads it. */
export interface ClientPolicy {
  requestsPerSecond: number;
  burst: number;
  upstreamCallsPerMinute: number;
  maxCost: number;
  trustedDocumentsOnly: boolean;
  introspectionAllowed: boolean;
}

/** A client the clients file knows; `name` is `anonymous` for callers that name none (logs and metric labels). */
export interface KnownClient {
  readonly name: string;
  readonly audience: 'first-party' | 'partner' | 'anonymous';
  readonly policy: Readonly<ClientPolicy>;
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
  /**
   * Reserves an admitted operation's estimated upstream calls on the client's budget before it runs (set by the
   * client step): a refusal when the budget is spent. The reservation is settled against the actual calls after.
   */
  reserveCalls?: (calls: number) => Promise<{ allowed: true } | { allowed: false; retryAfterSeconds: number }>;
  /** Upstream calls reserved so far (every operation of a batch), settled after execution. */
  reservedCalls?: number;
  /** Whose budget the client step charged: `partner`, or `venue:<callerHash>` (a hash, never a credential). */
  budgetKey?: string;
  /** A refusal decided after the client step let the request in, for the client metrics. */
  refusedBy?: 'cost' | 'introspection' | 'trusted_documents' | 'upstream_budget';
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
  /**
   * Awaited before the request's first write to a service (src/upstreams/http.ts): a keyed mutation's step records
   * there that the key may have reached the upstream; a rejection stops the write before a byte is sent.
   */
  beforeUpstreamWrite?: () => Promise<void>;
  /** The estimate the client cost policy admitted the operation with. */
  cost?: { readonly cost: number; readonly upstreamCalls: number };
  /** Set when the compiled executor ran the request. */
  execution?: 'compiled';
  /**
   * Set when the answer is a stream: how it was carried, the results sent on it, and (a subscription) the upstream
   * calls of the shared poll's reads while it was subscribed.
   */
  stream?: { transport: Exclude<Transport, 'http'>; events: number; upstreamCalls?: number };
  /** Every upstream call made for this HTTP request (all operations of a batch). */
  readonly upstreamCalls: UpstreamCallRecord[];
  /** The operations executed (Apollo's or the compiled executor's), in the order they ended. */
  readonly operations: OperationRecord[];
  /** What the request holds until it is recorded (its deadline's timer): released once, by the route's finish. */
  release?: { release(): void };
}

/** A client's request id is kept only when it is well-formed. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A new record from the request's `x-request-id` (over HTTP or in a websocket's init). */
export function createRequestRecord(requestIdHeader: string | undefined): RequestRecord {
  const requestId = requestIdHeader && REQUEST_ID.test(requestIdHeader) ? requestIdHeader : randomUUID();
  return { requestId, started: performance.now(), upstreamCalls: [], operations: [] };
}

/** How the request ended, as its log line says it (src/http/graphqlRoute.ts). */
export interface RequestEnd {
  operationName: string | null;
  durationMs: number;
  outcome: OperationOutcome;
  errorCodes: string[];
  httpStatus: number | undefined;
  /** Each operation's outcome, when the request had other than one. */
  operations: Array<Pick<OperationRecord, 'operationName' | 'outcome' | 'errorCodes'>> | undefined;
  upstreamCalls: Array<Record<string, unknown>>;
}

/**
 * The request's log line: one object literal, in the line's order (pino leaves out the fields that are undefined).
 * Spreading parts into it cost more than the rest of the line.
 */
export function requestLogLine({ requestId, client, document, idempotency, cost, execution, stream }: RequestRecord, end: RequestEnd): Record<string, unknown> {
  return {
    requestId,
    client: client?.name,
    clientAudience: client?.audience,
    clientVersion: client?.version,
    document: document && (document.trusted ? 'trusted' : 'untrusted'),
    documentHash: document?.hashes.length ? document.hashes.join(',') : undefined,
    idempotencyKey: idempotency?.scopedKey?.slice(0, 16),
    idempotency: idempotency?.outcome,
    estimatedCost: cost && String(cost.cost),
    estimatedUpstreamCalls: cost && String(cost.upstreamCalls),
    actualUpstreamCalls: (stream?.upstreamCalls ?? client?.actualUpstreamCalls)?.toString(),
    execution,
    transport: stream?.transport,
    events: stream?.events,
    operationName: end.operationName,
    durationMs: end.durationMs,
    outcome: end.outcome,
    errorCodes: end.errorCodes,
    httpStatus: end.httpStatus,
    operations: end.operations,
    upstreamCalls: end.upstreamCalls,
  };
}
