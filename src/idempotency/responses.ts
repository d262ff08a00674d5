import { ErrorCode } from '../errors/codes';
import { refusal, type AnswerOutcome, type GraphqlResponse } from '../http/graphqlRoute';
import type { StoredResponse } from './store';

/** The stored response as it was sent: status, body and content type, plus the one header that says it is a replay. */
export function replay(stored: StoredResponse): GraphqlResponse {
  const headers = new Map<string, string>();
  if (stored.contentType !== undefined) headers.set('content-type', stored.contentType);
  headers.set('idempotent-replayed', 'true');
  const outcome: AnswerOutcome = { outcome: stored.outcome ?? (stored.status < 400 ? 'success' : 'error'), errorCodes: stored.errorCodes ?? [] };
  return { status: stored.status, headers, body: stored.body, outcome };
}

/**
 * What is kept of a response. One larger than `maxBytes` is not kept whole, yet its outcome must not be forgotten
 * (the upstream may have acted): a repeat gets a 422 saying the first request ran and cannot be replayed, so it is
 * never run again, rather than a replay cut short.
 */
export function toStored(response: GraphqlResponse, answered: AnswerOutcome, fingerprint: string, maxBytes: number): { stored: StoredResponse; whole: boolean } {
  const bytes = Buffer.byteLength(response.body);
  if (bytes <= maxBytes) {
    return { stored: { fingerprint, status: response.status, contentType: response.headers.get('content-type'), body: response.body, ...answered }, whole: true };
  }
  const substitute = refusal(
    422,
    ErrorCode.IDEMPOTENCY_KEY_REUSED,
    `The request first sent with this Idempotency-Key ran, but its response (${bytes} bytes) was larger than the gateway keeps, so it cannot be replayed; it is not run again. Read its outcome with a query, and use a new key for a new request.`,
  );
  return { stored: { fingerprint, status: substitute.status, contentType: substitute.headers.get('content-type'), body: substitute.body, ...substitute.outcome }, whole: false };
}
