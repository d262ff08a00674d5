import { errorReply, type SandboxReply } from '../http';

/**
 * Every error the simulated reservation service answers, in one place.
 * Documented: 960 (401 Invalid Token), 821, 822, 832 (422 on the payment
 * request update; the messages are ours, the document gives reason names).
 * Assumptions, ours: 801 and 802 for other invalid input, 803 and 804 for a
 * booking in the past or beyond the revenue center's seats, the 400/404/413
 * bodies, and that all of them use the documented `errors` body shape.
 */
export const RESERVATION_ERRORS = {
  invalidToken: (): SandboxReply => errorReply(401, 'Invalid Token', 960),
  /** 801 invalid_parameter: a field is missing, of the wrong type or malformed. */
  invalidParameter: (message: string): SandboxReply => errorReply(422, message, 801),
  /** 802 record_not_found_in_store: an id in the body names nothing of the caller's store. */
  unknownReference: (message: string): SandboxReply => errorReply(422, message, 802),
  /** 803 date_in_the_past: a booking that starts before now (venue time). */
  dateInThePast: (message: string): SandboxReply => errorReply(422, message, 803),
  /** 804 beyond_capacity: more guests than the revenue center seats. */
  beyondCapacity: (message: string): SandboxReply => errorReply(422, message, 804),
  /** 822 amount_is_invalid. */
  amountInvalid: (): SandboxReply => errorReply(422, 'Amount is invalid', 822),
  /** 821 payment_expiry_duration_is_not_suitable. */
  expiryNotSuitable: (): SandboxReply => errorReply(422, 'Payment expiry duration is not suitable', 821),
  /** 832 feature_disabled_error. */
  featureDisabled: (): SandboxReply => errorReply(422, 'Payment link extension is not enabled for this store', 832),
  reservationNotFound: (): SandboxReply => errorReply(404, 'Reservation not found', 404),
  paymentRequestNotFound: (): SandboxReply => errorReply(404, 'Payment request not found', 404),
  routeNotFound: (): SandboxReply => errorReply(404, 'Not found', 404),
  badRequest: (message: string): SandboxReply => errorReply(400, message, 400),
} as const;
