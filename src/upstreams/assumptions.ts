import { STORE_PIN_CODE_LENGTH } from './reservation/assumptions';

/** What the gateway assumes of both services' answers where their documents say nothing; one service's are in its folder. */

/** Assumed: any 2xx is a success. The documents show 200 and 201 only; a 202 or 204 is no failure (CONTRACT.md). */
export function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

/**
 * Assumed: a 2xx without a body is a bad response, except where an operation is documented without one
 * (BODY_IGNORED) or not shown with one (the calendars operation's `onEmpty`).
 */
export const EMPTY_BODY_DETAIL = 'the body is empty';

/** Shorter credentials are not looked for in upstream messages (any text would "contain" them): a STORE_PIN_CODE's length. */
export const MIN_MASKED_SECRET_LENGTH = STORE_PIN_CODE_LENGTH;
