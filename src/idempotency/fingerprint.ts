import { sha256Hex } from '../sha256';

/** What identifies one request under an Idempotency-Key (CONTRACT.md, "Idempotency-Key", fingerprint). */
export interface FingerprintParts {
  /** The operation document's text as the client sent it (or as its persisted-query hash names it). */
  documentText: string;
  operationName: string | null;
  /** The variables as sent; absent variables are `{}`. */
  variables: Readonly<Record<string, unknown>>;
}

/**
 * SHA-256 (hex) of the document text's own SHA-256, the operation name and the variables as canonical JSON,
 * newline-separated. Each part is of a fixed form (a hex digest, a JSON string or null, a JSON object), so no two
 * different requests can produce the same input.
 */
export function requestFingerprint(parts: FingerprintParts): string {
  return sha256Hex(`${sha256Hex(parts.documentText)}\n${JSON.stringify(parts.operationName)}\n${canonicalJson(parts.variables)}`);
}

/**
 * JSON with object keys sorted at every depth, so `{"a":1,"b":2}` and `{"b":2,"a":1}` are the same request. Arrays
 * keep their order; a key whose value is `null` stays, so an omitted variable differs from `null`.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, field]) => field !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, field]) => `${JSON.stringify(key)}:${canonicalJson(field)}`);
    return `{${entries.join(',')}}`;
  }
  // Parsed JSON holds only strings, finite numbers, booleans and null here: JSON.stringify writes each one way.
  return JSON.stringify(value);
}
