import { ErrorCode } from '../errors/codes';
import type { ServiceName } from './serviceName';

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
