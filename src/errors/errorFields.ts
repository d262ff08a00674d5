/**
 * Fields of a caught value, read without `instanceof Error`: errors thrown by Node itself (fs, AbortSignal) come from
 * another realm under a test runner's VM, and a library may throw anything.
 */

/** The thrown value's message, or its text when it has none. */
export function messageOf(err: unknown): string {
  return typeof err === 'object' && err !== null && 'message' in err && typeof err.message === 'string' ? err.message : String(err);
}

/** Its `code` (`ENOENT`, `UND_ERR_SOCKET`), when it has a string one. */
export function codeOf(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
}

/** Its `name` (`AbortError`), when it has a string one. */
export function nameOf(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'name' in err && typeof err.name === 'string' ? err.name : undefined;
}
