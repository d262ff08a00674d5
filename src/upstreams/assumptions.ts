import { STORE_PIN_CODE_LENGTH } from './reservation/assumptions';

/**
 * What the gateway assumes of both services' answers where their documents say nothing, in one place. Each entry is
 * an assumption; correcting one is a change here only. What one service alone leaves open is in its folder.
 */

/**
 * Assumed: any 2xx is a success, whatever its exact status. The documents show 200 and 201 only; a service that
 * starts answering 202 or 204 has not failed (CONTRACT.md).
 */
export function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

/**
 * Assumed: a 2xx without a body is a bad response, except where an operation is documented to answer without one
 * (its 2xx body is then ignored, BODY_IGNORED) or is not shown to answer with one (the calendars operation, whose
 * client gives `onEmpty`). Every other operation is documented with a body the gateway needs.
 */
export const EMPTY_BODY_DETAIL = 'the body is empty';

/**
 * Credentials shorter than this are not looked for in upstream messages: any text would "contain" them. It is the
 * assumed length of a STORE_PIN_CODE (./reservation/assumptions.ts), the shortest credential, which is masked all
 * the same.
 */
export const MIN_MASKED_SECRET_LENGTH = STORE_PIN_CODE_LENGTH;
