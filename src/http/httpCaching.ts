import { createHash } from 'node:crypto';
import { CREDENTIAL_HEADERS, OTHER_SPELLINGS } from '../credentials';
import type { GraphqlResponse } from '../pipeline/types';
import { COMPRESSION_THRESHOLD_BYTES, negotiateEncoding, type ContentEncoding } from './compression';

/**
 * How an answer of `/graphql` may be cached (CONTRACT.md, "HTTP caching"; RFC 9111). A cache in front of the gateway
 * (a CDN, a corporate proxy) must never serve one caller's answer to another, nor keep a POST's, a refusal's or an
 * error's; a GET's answer may be kept by the client itself and revalidated with its ETag (304, no body).
 */

/** Nothing stored, anywhere: POST answers, refusals, errors, incremental answers. */
export const NO_STORE = 'no-store';
/** Kept by the client only (never a shared cache), and revalidated before each use. */
const PRIVATE_REVALIDATE = 'private, no-cache';

/**
 * The request headers an answer depends on: how it is written (`Accept`, `Accept-Encoding`), who asks (`X-Api-Key`) and
 * every credential header under each of its spellings (src/credentials.ts), so even a cache that ignores `private`
 * keys a venue's answer by that venue's credentials.
 */
export const VARY = ['Accept', 'Accept-Encoding', 'X-Api-Key', ...Object.values(CREDENTIAL_HEADERS).flat(), ...Object.values(OTHER_SPELLINGS)].join(', ');

/** An answer as it goes on the wire: its caching headers set, maybe a 304, maybe to be compressed. */
export interface HttpAnswer extends GraphqlResponse {
  /** The coding `body` is to be written in; none: as it is. */
  readonly encoding?: ContentEncoding;
}

export interface RepresentOptions {
  method: 'GET' | 'POST';
  header: (lowerName: string) => string | undefined;
  /** RESPONSE_COMPRESSION. */
  compression: boolean;
}

/** The caching headers, the coding and, for a GET whose `If-None-Match` matches, the 304: decided before the answer is recorded. */
export function represent(response: GraphqlResponse, options: RepresentOptions): HttpAnswer {
  const headers = new Map(response.headers);
  headers.set('vary', VARY);
  // The coding asked for first: most clients of a BFF ask none, and the body's byte count is then not needed.
  const asked = options.compression ? negotiateEncoding(options.header('accept-encoding')) : undefined;
  const encoding = asked && Buffer.byteLength(response.body) >= COMPRESSION_THRESHOLD_BYTES ? asked : undefined;
  if (options.method !== 'GET' || response.status >= 400) {
    headers.set('cache-control', NO_STORE);
    return answerWith(response, headers, encoding);
  }
  const etag = etagOf(response.body, encoding);
  headers.set('cache-control', PRIVATE_REVALIDATE);
  headers.set('etag', etag);
  if (!matchesAny(options.header('if-none-match'), etag)) return answerWith(response, headers, encoding);
  // RFC 9110 §15.4.5: a 304 carries what a 200 would of ETag, Cache-Control and Vary, and no content.
  headers.delete('content-type');
  return { ...response, status: 304, headers, body: '' };
}

/**
 * The answer with its headers and coding, as one literal: a spread followed by a property it lacks makes V8 build a
 * new hidden class for every answer (docs/performance.md, "Hidden classes").
 */
function answerWith(response: GraphqlResponse, headers: Map<string, string>, encoding: ContentEncoding | undefined): HttpAnswer {
  return { status: response.status, headers, body: response.body, outcome: response.outcome, stream: response.stream, encoding };
}

/**
 * A strong ETag of the body as sent (RFC 9110 §8.8.3): the identity body's digest, and for a compressed representation
 * that digest with the coding, as it is a different representation. The codings are deterministic for a given zlib,
 * so the same answer compressed again is the same bytes.
 */
export function etagOf(body: string | Buffer, encoding: ContentEncoding | undefined): string {
  const digest = createHash('sha256').update(body).digest('base64url').slice(0, 27);
  return `"${digest}${encoding ? `-${encoding}` : ''}"`;
}

/** `If-None-Match` by weak comparison (RFC 9110 §13.1.2): `*`, or any listed tag with the same opaque value. */
function matchesAny(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
