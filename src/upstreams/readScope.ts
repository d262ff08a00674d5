import { createHash } from 'node:crypto';

/**
 * SHA-256 (hex) over the credential headers forwarded to one service on a call, in name order, each name and value
 * length-prefixed so no two different sets hash alike. The same values always hash alike, whoever sends them.
 */
export function credentialHash(headers: Readonly<Record<string, string>>): string {
  const hash = createHash('sha256');
  for (const name of Object.keys(headers).sort()) {
    const value = headers[name];
    hash.update(`${name.length}:${name.toLowerCase()}=${value.length}:${value};`);
  }
  return hash.digest('hex');
}

/** The seconds of `Cache-Control: max-age=N` in a request's header (RFC 9111 §5.2.1), or 0 when no cached answer may be used. */
export function requestMaxAgeSeconds(header: string | undefined): number {
  if (!header) return 0;
  let maxAge: number | undefined;
  for (const part of header.split(',')) {
    const [rawName, ...rest] = part.split('=');
    const name = rawName.trim().toLowerCase();
    // no-cache and no-store: the client wants what the upstream says now.
    if (name === 'no-cache' || name === 'no-store') return 0;
    if (name !== 'max-age') continue;
    // Token or quoted-string form (§5.2: recipients accept both); anything else is no max-age at all.
    const value = /^"?(\d+)"?$/.exec(rest.join('=').trim())?.[1];
    if (value === undefined || rest.length === 0) return 0;
    // A repeated directive is invalid (§4.2.1); the least staleness asked for is the safe reading.
    const seconds = Math.min(Number(value), Number.MAX_SAFE_INTEGER);
    maxAge = maxAge === undefined ? seconds : Math.min(maxAge, seconds);
  }
  return maxAge ?? 0;
}
