import { ErrorCode } from './codes';
import type { ServiceName, UpstreamError } from './UpstreamError';

/** What a service's document says one of its error codes means. */
export interface DocumentedCode {
  /** The reason name the document gives it: `extensions.upstream.reason`. */
  reason: string;
  /** The contract's `extensions.code` when the code means more than its status (832 arrives as a 422). */
  code?: ErrorCode;
  /** The upstream request field the code is about: `extensions.field`, named after the GraphQL input. */
  field?: string;
}

/**
 * Each service's documented error codes, numbered its own way: a code means something only in its own service's
 * table, and a code not in it is read by its status.
 * - reservation-service.md, "Errors": the reason names, the codes that mean more than their status, and the request
 *   field each input refusal is about (821 about expiration_time, 822 about amount, both on the payment request update).
 * - pos-service.md documents no error codes: a POS answer is read by its status alone, whatever code it carries.
 */
const BY_SERVICE: Readonly<Record<ServiceName, Readonly<Record<number, DocumentedCode>>>> = {
  reservation: {
    960: { reason: 'invalid_token', code: ErrorCode.UNAUTHENTICATED },
    821: { reason: 'payment_expiry_duration_is_not_suitable', field: 'expiration_time' },
    822: { reason: 'amount_is_invalid', field: 'amount' },
    832: { reason: 'feature_disabled_error', code: ErrorCode.FEATURE_DISABLED },
  },
  pos: {},
};

/** What the service's document says of this code; undefined for an undocumented code, or none. */
export function documentedCode(service: ServiceName, upstreamCode: number | undefined): DocumentedCode | undefined {
  return upstreamCode === undefined ? undefined : BY_SERVICE[service][upstreamCode];
}

export interface UpstreamExtension {
  service: ServiceName;
  status: number;
  code?: number;
  reason?: string;
  /** A bad response's upstream field (`delivery.payment_names`) and what came there (`string`), never the value. */
  field?: string;
  received?: string;
}

const SERVICE_LABEL: Record<ServiceName, string> = { reservation: 'The reservation service', pos: 'The POS service' };

/**
 * The one map from an upstream failure to the contract's `extensions.code` (CONTRACT.md, "Errors").
 * A documented upstream code wins over the status (the reservation service's 832 arrives as a 422 but means a
 * disabled feature); each service's documented codes are above.
 */
export function upstreamErrorCode(err: Pick<UpstreamError, 'service' | 'failure' | 'status' | 'upstreamCode'>): ErrorCode {
  switch (err.failure) {
    case 'timeout':
      return ErrorCode.UPSTREAM_TIMEOUT;
    case 'unavailable':
      return ErrorCode.UPSTREAM_UNAVAILABLE;
    case 'bad_response':
      return ErrorCode.UPSTREAM_BAD_RESPONSE;
    case 'status':
      break;
  }
  const byCode = documentedCode(err.service, err.upstreamCode)?.code;
  if (byCode) return byCode;
  switch (err.status) {
    case 400:
    case 422:
      return ErrorCode.BAD_USER_INPUT;
    case 401:
      return ErrorCode.UNAUTHENTICATED;
    case 403:
      return ErrorCode.FORBIDDEN;
    case 404:
      return ErrorCode.NOT_FOUND;
    default:
      return ErrorCode.UPSTREAM_ERROR;
  }
}

/** `extensions.upstream` for an error caused by an upstream answer; undefined when there was no answer. */
export function upstreamExtension(err: UpstreamError): UpstreamExtension | undefined {
  if (err.status === undefined) return undefined;
  const reason = documentedCode(err.service, err.upstreamCode)?.reason;
  return {
    service: err.service,
    status: err.status,
    ...(err.upstreamCode !== undefined ? { code: err.upstreamCode } : {}),
    ...(reason ? { reason } : {}),
    ...(err.deviation ? { field: err.deviation.field, received: err.deviation.received } : {}),
  };
}

/**
 * `extensions.field` of an upstream refusal of the input: the GraphQL input path its message or its documented code
 * names (822 → `input.amount`), once the resolver named it after its input (src/errors/inputNames.ts); only for a
 * refusal that is reported as BAD_USER_INPUT, so a code on a 5xx names nothing.
 */
export function upstreamErrorField(err: UpstreamError): string | undefined {
  if (err.inputField === undefined || upstreamErrorCode(err) !== ErrorCode.BAD_USER_INPUT) return undefined;
  return err.inputField;
}

/** A message for people: which service, what happened, the service's own words when safe. */
export function upstreamErrorMessage(err: UpstreamError): string {
  const who = SERVICE_LABEL[err.service];
  const said = err.upstreamMessage ? `: ${err.upstreamMessage}` : '';
  switch (err.failure) {
    case 'timeout':
      return `${who} did not answer in time.`;
    case 'unavailable':
      return `${who} is unavailable${err.detail ? ` (${err.detail})` : ''}.`;
    case 'bad_response':
      return `${who} sent an answer the gateway cannot use${err.detail ? `: ${err.detail}` : ''}.`;
    case 'status':
      return `${who} refused the request (HTTP ${err.status})${said}.`;
  }
}

/**
 * The upstream's own message, only when it is short plain text and names no address; anything else is dropped
 * rather than shown, because upstream messages are not ours to trust.
 */
export function safeUpstreamMessage(message: unknown): string | undefined {
  if (typeof message !== 'string') return undefined;
  const trimmed = message.trim();
  if (trimmed.length === 0 || trimmed.length > 200) return undefined;
  if (/[a-z][a-z0-9+.-]*:\/\/|\b\d{1,3}(\.\d{1,3}){3}\b|[\r\n<>{}]/i.test(trimmed)) return undefined;
  return trimmed;
}
