import { createHash } from 'node:crypto';

/** SHA-256 of a text, in hex: ids of trusted documents, idempotency fingerprints and keys, partners' key hashes. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
