/**
 * Fields of a caught value, read without `instanceof Error`: errors thrown by Node itself (fs, AbortSignal) come from
 * another realm under a test runner's VM, and a library may throw anything.
 */
function stringField(err: unknown, key: 'message' | 'code' | 'name'): string | undefined {
  const value: unknown = typeof err === 'object' && err !== null && key in err ? (err as Record<typeof key, unknown>)[key] : undefined;
  return typeof value === 'string' ? value : undefined;
}

/** The thrown value's message, or its text when it has none. */
export const messageOf = (err: unknown): string => stringField(err, 'message') ?? String(err);
/** Its `code` (`ENOENT`, `UND_ERR_SOCKET`), when it has a string one. */
export const codeOf = (err: unknown): string | undefined => stringField(err, 'code');
/** Its `name` (`AbortError`), when it has a string one. */
export const nameOf = (err: unknown): string | undefined => stringField(err, 'name');
