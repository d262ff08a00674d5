/**
 * Everything about the reservation service that its document does not show, in one place. Each entry is an
 * assumption; correcting one is a change here only.
 */

/** The read side: the document names "show" and "index: GET" for reservations without paths (CONTRACT.md). */
export const RESERVATION_READ = {
  /** Assumed: `GET /v1/reservations/{id}` answers `{"reservation": {…}}` like the create operation. */
  showPath: (encodedId: string) => `/v1/reservations/${encodedId}`,
  /** Assumed: `GET /v1/reservations?date=&revenue_center_id=&page=&per_page=` answers `{"reservations":[…],"meta":{…}}`. */
  indexPath: '/v1/reservations',
} as const;

/**
 * Assumed: the calendars operation answers either nothing or `{"reservation": {…}}` like POST /v1/reservations
 * (the document says "response body: not shown").
 */
export const CALENDAR_RESPONSE_KEY = 'reservation';

/**
 * Which client headers each operation needs. The document lists the four API-key headers for the off-day and
 * calendar operations but not how they combine: assumed all four are required. Reads are assumed to take the
 * `Reservation-Access-Token` like the create operation (CONTRACT.md).
 */
export const RESERVATION_REQUIRED_HEADERS = {
  createReservation: ['reservation-access-token'],
  readReservations: ['reservation-access-token'],
  updatePaymentRequest: ['reservation-access-token'],
  createCalendarReservation: ['authorization', 'employee_token', 'store_pin_code', 'slug_name'],
  createOffDay: ['authorization', 'employee_token', 'store_pin_code', 'slug_name'],
} as const;

/** The documented error codes and their reason names (reservation-service.md, "Errors"). */
export const RESERVATION_ERROR_REASONS: Readonly<Record<number, string>> = {
  960: 'invalid_token',
  821: 'payment_expiry_duration_is_not_suitable',
  822: 'amount_is_invalid',
  832: 'feature_disabled_error',
};

/**
 * The upstream request field each documented input-refusal code is about (reservation-service.md, "Errors": 821 about
 * expiration_time, 822 about amount, both on the payment request update). `extensions.field` is its GraphQL input
 * path, derived from the input mapper (src/errors/inputNames.ts). A code that names no field is absent.
 */
export const RESERVATION_ERROR_FIELDS: Readonly<Record<number, string>> = {
  821: 'expiration_time',
  822: 'amount',
};
