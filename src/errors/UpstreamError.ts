/** The two upstream services, as they are named in errors (`extensions.upstream.service`), logs and metrics. */
export type ServiceName = 'reservation' | 'pos';

/**
 * How an upstream call failed: a non-2xx `status`; no answer in time (`timeout`); no connection or an open circuit
 * (`unavailable`); an answer that breaks the service's contract (`bad_response`: not JSON, wrong shape, a redirect).
 */
export type UpstreamFailure = 'status' | 'timeout' | 'unavailable' | 'bad_response';

/** What an UpstreamError is made with: any of its own fields, and the cause. */
type UpstreamErrorDetails = Partial<Omit<UpstreamError, 'service' | 'failure' | keyof Error>> & { cause?: unknown };

/** A failed call to an upstream service. Turned into a GraphQL error with the contract's code by formatError. */
export class UpstreamError extends Error {
  readonly status?: number;
  readonly upstreamCode?: number;
  /** The service's own message, kept only when it is safe to show (see safeUpstreamMessage). */
  readonly upstreamMessage?: string;
  /** What broke, for people: e.g. the offending field of a wrong-shaped body. Never an address or credential. */
  readonly detail?: string;
  /** The GraphQL input path an input refusal is about (`input.revenueCenterId`), once named (namedAfterInput). */
  readonly inputField?: string;
  /** The upstream's `Retry-After`, in milliseconds. */
  readonly retryAfterMs?: number;
  /** The GraphQL request's own deadline ran out (not the upstream's fault: never retried, never counted against it). */
  readonly deadlineExceeded: boolean = false;
  /** No connection could be made or kept (refused, reset), as opposed to an open circuit or shed load. */
  readonly connectionFailed: boolean = false;
  /** For a bad response: the upstream field that broke its reading and what came (a JSON type or a reason). */
  readonly deviation?: { field: string; received: string };

  constructor(
    readonly service: ServiceName,
    readonly failure: UpstreamFailure,
    details: UpstreamErrorDetails = {},
  ) {
    super(`${service} upstream ${failure}${details.status ? ` ${details.status}` : ''}${details.detail ? `: ${details.detail}` : ''}`, {
      cause: details.cause,
    });
    this.name = 'UpstreamError';
    const { cause: _cause, ...fields } = details;
    Object.assign(this, fields);
  }
}
