import { ErrorCode } from '../../errors/codes';
import type { DocumentedCode } from '../documentedCode';

/**
 * The reservation service's documented error codes (reservation-service.md, "Errors"): their reason names, the
 * codes that mean more than their status, and the request field each input refusal is about (821 about
 * expiration_time, 822 about amount, both on the payment request update). A code not here is read by its status.
 */
export const RESERVATION_ERROR_CODES: Readonly<Record<number, DocumentedCode>> = {
  960: { reason: 'invalid_token', code: ErrorCode.UNAUTHENTICATED },
  821: { reason: 'payment_expiry_duration_is_not_suitable', field: 'expiration_time' },
  822: { reason: 'amount_is_invalid', field: 'amount' },
  832: { reason: 'feature_disabled_error', code: ErrorCode.FEATURE_DISABLED },
};
