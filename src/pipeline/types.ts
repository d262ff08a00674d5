import type { IncomingHttpHeaders } from 'node:http';
import type { GatewayContext } from '../context';
import { errorBody, JSON_TYPE } from '../http/send';
import type { ReadRequest } from '../http/operationRequests';
import type { OperationOutcome } from '../observability/metrics';
import { ErrorCode } from '../errors/codes';
import type { RequestRecord } from './record';
import type { ResultStream } from './stream';

/**
 * The types every stage of the one pipeline shares: the reader's request, the steps, the executors and the transports
 * (HTTP JSON, multipart, Server-Sent Events, WebSocket). None of them owns this file; each imports it.
 */

/** One GraphQL request as the steps see it: method checked, operations read once, its record. */
export interface GraphqlRequest {
  readonly method: 'GET' | 'POST';
  readonly url: URL;
  /** A request header by lower-cased name (the first value when repeated). */
  header: (lowerName: string) => string | undefined;
  readonly incomingHeaders: IncomingHttpHeaders;
  readonly read: ReadRequest;
  /** The steps fill it and decide from it; the transport's writer writes it out once. */
  readonly record: RequestRecord;
  /** Built on first use, by whichever executor runs the request. */
  context(): Promise<GatewayContext>;
}

/** How an answer written without executing an operation (a refusal, a replay) ended. */
export interface AnswerOutcome {
  outcome: OperationOutcome;
  errorCodes: string[];
}

/** A complete answer, written by a step itself (a refusal, a replay) or by the steps after it; or a stream. */
export interface GraphqlResponse {
  status: number;
  headers: Map<string, string>;
  /** The whole body, as text or as its UTF-8 bytes (the compiled path's, see compiledPath.ts); empty for a stream. */
  body: string | Buffer;
  /** How an answer no executor wrote ended. */
  readonly outcome?: AnswerOutcome;
  /** Set when the answer is a stream of results (its `body` is then empty). */
  readonly stream?: ResultStream;
}

/** A refusal: nothing executed, one error with its contract code. */
export function refusal(status: number, code: string, message: string, headers: Record<string, string> = {}): GraphqlResponse {
  return {
    status,
    headers: new Map([['content-type', JSON_TYPE], ...Object.entries(headers)]),
    body: JSON.stringify(errorBody(message, code)),
    outcome: { outcome: 'error', errorCodes: [code] },
  };
}

/** How the request ended as a whole: a batch is an error when every operation failed, partial when some did. */
export function answerOutcome(record: RequestRecord, response: Pick<GraphqlResponse, 'outcome'>): AnswerOutcome {
  const ops = record.operations;
  if (ops.length === 0) return response.outcome ?? { outcome: 'error', errorCodes: [ErrorCode.INTERNAL_SERVER_ERROR] };
  // Most requests: one operation, its codes already distinct or none.
  const [only] = ops;
  if (ops.length === 1 && only.errorCodes.length < 2) return { outcome: only.outcome, errorCodes: only.errorCodes };
  const outcome = ops.every((op) => op.outcome === 'success') ? 'success' : ops.every((op) => op.outcome === 'error') ? 'error' : 'partial';
  return { outcome, errorCodes: [...new Set(ops.flatMap((op) => op.errorCodes))] };
}

/** An executor beside Apollo for the requests it can answer exactly as Apollo would. */
export interface CompiledExecutor {
  /** The answer, or undefined (at once, or once it has executed) to hand the request to Apollo. */
  run(request: GraphqlRequest): Promise<GraphqlResponse | undefined> | undefined;
  /** Sees each answer Apollo executed, to take over what Apollo decided (its content type for an accept header). */
  learn(request: GraphqlRequest, response: GraphqlResponse): void;
}

/** A policy around execution (idempotency, client limits, …), composed as undici interceptors: answer, or call `next()`. */
export type GraphqlStep = (request: GraphqlRequest, next: () => Promise<GraphqlResponse>) => Promise<GraphqlResponse>;

/** The one pipeline, for every transport: the steps and an executor, then the one writer of the record. */
export interface GraphqlPipeline {
  /** The steps and the executor; a throw anywhere inside is answered 500 and still recorded. */
  answer(request: GraphqlRequest): Promise<GraphqlResponse>;
  /** The one writer of a request's outcome: its log line, its count per operation, its span; once the answer (or stream) ended. */
  finish(record: RequestRecord, response: Pick<GraphqlResponse, 'status' | 'outcome'>, batched: boolean): void;
}
