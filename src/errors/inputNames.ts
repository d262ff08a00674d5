import { ErrorCode } from './codes';
import { UpstreamError } from './UpstreamError';
import { documentedCode, upstreamErrorCode } from './upstreamErrorCode';

/** Upstream field name → GraphQL input path, as src/inputs/upstreamFieldPaths.ts derives it from an input mapper. */
export type InputFieldPaths = ReadonlyMap<string, string>;

/**
 * An upstream refusal of the input, said in the client's names: the upstream request fields its message names
 * (`revenue_center_id is not …`) become the GraphQL input paths (`input.revenueCenterId is not …`), and the first of
 * them, or the field its documented code is about (822 → `amount`), becomes `inputField` (`extensions.field`).
 * Anything that is not a refusal of the input (BAD_USER_INPUT) comes back as it was.
 */
export function namedAfterInput(err: UpstreamError, fields: InputFieldPaths): UpstreamError {
  if (upstreamErrorCode(err) !== ErrorCode.BAD_USER_INPUT) return err;
  const said = err.upstreamMessage ? renamed(err.upstreamMessage, fields) : undefined;
  const documented = documentedCode(err.service, err.upstreamCode)?.field;
  const inputField = (documented !== undefined ? fields.get(documented) : undefined) ?? said?.first;
  if (inputField === undefined && said?.message === err.upstreamMessage) return err;
  return new UpstreamError(err.service, err.failure, {
    status: err.status,
    upstreamCode: err.upstreamCode,
    upstreamMessage: said?.message,
    detail: err.detail,
    inputField,
    retryAfterMs: err.retryAfterMs,
    deadlineExceeded: err.deadlineExceeded,
    connectionFailed: err.connectionFailed,
    cause: err.cause,
  });
}

/** Runs an upstream call whose input refusals are named after `fields`. */
export async function withInputNames<T>(fields: InputFieldPaths, call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (err) {
    throw err instanceof UpstreamError ? namedAfterInput(err, fields) : err;
  }
}

/**
 * Each upstream name, as a whole word, at its first mention only: a name that is also a plain word ("date must be a
 * date of the form …") is the field where it comes first and prose after that.
 */
function renamed(message: string, fields: InputFieldPaths): { message: string; first?: string } {
  const names = [...fields.keys()].sort((a, b) => b.length - a.length).map(escape);
  if (names.length === 0) return { message };
  const seen = new Set<string>();
  let first: string | undefined;
  const text = message.replace(new RegExp(`(?<![\\w.])(${names.join('|')})(?![\\w])`, 'g'), (name: string) => {
    if (seen.has(name)) return name;
    seen.add(name);
    const path = fields.get(name)!;
    first ??= path;
    return path;
  });
  return { message: text, first };
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
