import { documentedCode } from '../upstreams/errorCodes';
import { ErrorCode } from './codes';
import type { ServiceName, UpstreamError } from './UpstreamError';

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
 * disabled feature); each service's codes are in its folder (src/upstreams/errorCodes.ts).
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
