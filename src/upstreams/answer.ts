import type { ZodType } from 'zod';
import { formatPath } from '../errors/fieldPath';
import { UpstreamError, type ServiceName } from '../errors/UpstreamError';
import { safeUpstreamMessage } from '../errors/upstreamErrorCode';
import { EMPTY_BODY_DETAIL, MIN_MASKED_SECRET_LENGTH, isSuccess } from './assumptions';
import { NOT_JSON } from './record';
import { UpstreamErrorBody } from './schemas';
import type { Answer } from './transport';

/** How one operation's 2xx body is read. */
export interface Reading<T> {
  /** What a non-empty 2xx body becomes: a zod schema checked whole, or a record reader (given NOT_JSON for no JSON). */
  response: ZodType<T> | ((body: unknown, status: number) => T);
  /** What a 2xx without a body becomes; absent, such an answer is a bad response (EMPTY_BODY_DETAIL). */
  onEmpty?: () => T;
}

/** The reading of an operation whose 2xx body means nothing: drained unread (error answers are still read). */
export const BODY_IGNORED: Reading<undefined> = { response: () => undefined, onEmpty: () => undefined };

/** Throws the UpstreamError of an answer that is no success; an upstream message quoting one of `secrets` is dropped. */
export function checkStatus(service: ServiceName, { status, headers, text }: Answer, secrets: readonly string[]): void {
  if (status >= 300 && status < 400) {
    throw new UpstreamError(service, 'bad_response', { status, detail: 'it answered with a redirect, which the gateway does not follow' });
  }
  if (isSuccess(status)) return;
  let upstreamCode: number | undefined;
  let upstreamMessage: string | undefined;
  try {
    const parsed = UpstreamErrorBody.safeParse(JSON.parse(text));
    if (parsed.success) {
      const first = parsed.data.errors[0];
      const code = typeof first?.code === 'string' && /^\d+$/.test(first.code) ? Number(first.code) : first?.code;
      if (typeof code === 'number' && Number.isInteger(code)) upstreamCode = code;
      const message = safeUpstreamMessage(first?.message);
      if (message !== undefined && !quotesSecret(message, secrets)) upstreamMessage = message;
    }
  } catch {
    // An error answer without a JSON body is still an error; it just carries no upstream code.
  }
  throw new UpstreamError(service, 'status', { status, upstreamCode, upstreamMessage, retryAfterMs: retryAfterMs(headers['retry-after']) });
}

/** The value of a success's body, or the UpstreamError of a body that is unusable. */
export function readBody<T>(service: ServiceName, reading: Reading<T>, answer: Answer): T {
  const { response } = reading;
  const { status, text } = answer;
  if (text.trim() === '') {
    if (reading.onEmpty) return reading.onEmpty();
    throw new UpstreamError(service, 'bad_response', { status, detail: EMPTY_BODY_DETAIL });
  }
  const json = (answer.json ??= jsonOf(text));
  if (json === NOT_JSON) {
    if (typeof response === 'function') return response(NOT_JSON, status);
    throw new UpstreamError(service, 'bad_response', { status, detail: 'the body is not JSON' });
  }
  if (typeof response === 'function') return response(json, status);
  const parsed = response.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? `field ${formatPath(issue.path)}` : 'the body';
    throw new UpstreamError(service, 'bad_response', { status, detail: `${where}: ${issue?.message ?? 'wrong shape'}` });
  }
  return parsed.data;
}

/** The JSON value of a body, or NOT_JSON. */
function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return NOT_JSON;
  }
}

/** Whether `message` quotes a credential, or one without its auth scheme (`Bearer abc` → `abc`), in any case. */
function quotesSecret(message: string, secrets: readonly string[]): boolean {
  const text = message.toLowerCase();
  return secrets.some((secret) => {
    const trimmed = secret.trim();
    const bare = /^[A-Za-z][\w.+-]*\s+(\S.*)$/.exec(trimmed)?.[1];
    return [trimmed, bare].some((value) => value !== undefined && value.length >= MIN_MASKED_SECRET_LENGTH && text.includes(value.toLowerCase()));
  });
}

/** `Retry-After` as delay-seconds or an HTTP date, in ms; undefined when absent or unreadable. */
export function retryAfterMs(header: string | string[] | undefined, now = Date.now()): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Only an IMF-fixdate (RFC 9110) is a date: V8's Date.parse would read "-1" or "1.5" as a year.
  if (!/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(text)) return undefined;
  return Math.max(0, Date.parse(text) - now);
}
