import type { SandboxReply } from '../http';
import { findTypeError, given, isUuid, type BodySpec } from '../validate';
import type { EndpointContext } from './context';
import { RESERVATION_ERRORS as E } from './errors';

/** "Payment request (body of the update operation)" without amount and expiration_time, which have their own errors. */
const PAYMENT_BODY: BodySpec = {
  id: 'string', currency: 'string', phone_number: 'string', email: 'string', send_email: 'boolean', send_sms: 'boolean',
  sms_content: 'string', note: 'string', language: 'string',
};
const UPDATABLE = ['currency', 'phone_number', 'email', 'send_email', 'send_sms', 'sms_content', 'note', 'language'] as const;

/**
 * PATCH /v1/reservation-payments → 200 with no body (documented). Order of
 * checks, an assumption: extension (832), id (404), field types (801),
 * amount (822), expiration_time (821). Fields left out keep their value.
 */
export function updatePaymentRequest(ctx: EndpointContext): SandboxReply {
  const { body, tenant } = ctx;
  if (!tenant.payment_link_enabled) return E.featureDisabled();
  if (!given(body.id)) return E.invalidParameter('id is required');
  const request = isUuid(body.id) ? tenant.payment_requests.get(body.id) : undefined;
  if (!request) return E.paymentRequestNotFound();
  const typeError = findTypeError(body, PAYMENT_BODY);
  if (typeError) return E.invalidParameter(typeError);
  if ('amount' in body && !(typeof body.amount === 'number' && Number.isFinite(body.amount) && body.amount > 0)) return E.amountInvalid();
  if ('expiration_time' in body && !(Number.isInteger(body.expiration_time) && (body.expiration_time as number) > 0)) {
    return E.expiryNotSuitable();
  }

  if (typeof body.amount === 'number') request.amount = body.amount;
  if (typeof body.expiration_time === 'number') request.expiration_time = body.expiration_time;
  for (const field of UPDATABLE) {
    if (given(body[field])) Object.assign(request, { [field]: body[field] });
  }
  const reservation = tenant.reservations.get(request.reservation_id);
  if (reservation?.reservation_payment) {
    reservation.reservation_payment = { ...reservation.reservation_payment, amount: request.amount, currency: request.currency };
  }
  return { status: 200 };
}
