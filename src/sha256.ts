import { hash } from 'node:crypto';

/**
 * SHA-256 of a text, in hex: ids of trusted documents, idempotency fingerprints and keys, partners' key hashes, the
 * caller hash of every request. Node's one-shot `crypto.hash`: no Hash object per call.
 */
export function sha256Hex(text: string): string {
  return hash('sha256', text, 'hex');
}
