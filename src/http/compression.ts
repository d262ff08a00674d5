import Negotiator from 'negotiator';
import { promisify } from 'node:util';
import { brotliCompress, constants, createBrotliCompress, createGzip, gzip, type BrotliCompress, type Gzip } from 'node:zlib';

/** The content codings the gateway serves (CONTRACT.md, "HTTP caching"). */
export type ContentEncoding = 'gzip' | 'br';

/** Below this a body goes as it is: the coding's framing and the CPU are not worth the bytes saved. */
export const COMPRESSION_THRESHOLD_BYTES = 1024;

/**
 * Brotli's default quality (11) is for static files: on a dynamic answer it costs many times gzip's CPU for a few
 * percent. 4 compresses better than gzip's default at about its speed (docs/performance.md, "Response compression").
 */
const BROTLI_QUALITY = 4;

const brotliOptions = { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT } };
const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

/** The coding the client prefers among gzip and br (q-values, then its order); none when it accepts neither. */
export function negotiateEncoding(acceptEncoding: string | undefined): ContentEncoding | undefined {
  if (!acceptEncoding) return undefined;
  // Each client library sends one header value: the choice is remembered for the few that come.
  if (chosenEncodings.has(acceptEncoding)) return chosenEncodings.get(acceptEncoding);
  const chosen = new Negotiator({ headers: { 'accept-encoding': acceptEncoding } }).encoding(['gzip', 'br', 'identity']);
  const encoding = chosen === 'gzip' || chosen === 'br' ? chosen : undefined;
  if (chosenEncodings.size >= MAX_REMEMBERED_HEADERS) chosenEncodings.clear();
  chosenEncodings.set(acceptEncoding, encoding);
  return encoding;
}

const chosenEncodings = new Map<string, ContentEncoding | undefined>();
const MAX_REMEMBERED_HEADERS = 64;

/** A whole body, compressed on libuv's thread pool (the event loop keeps serving). */
export function compress(body: string | Buffer, encoding: ContentEncoding): Promise<Buffer> {
  return encoding === 'gzip' ? gzipAsync(body) : brotliAsync(body, brotliOptions);
}

/** A streaming compressor whose `flushPart` pushes out everything written so far (a multipart answer's part). */
export interface PartEncoder {
  readonly stream: Gzip | BrotliCompress;
  flushPart(): Promise<void>;
}

export function partEncoder(encoding: ContentEncoding): PartEncoder {
  const stream = encoding === 'gzip' ? createGzip() : createBrotliCompress(brotliOptions);
  // A sync flush ends the part on a byte boundary and keeps the dictionary (a full flush would reset it).
  const kind = encoding === 'gzip' ? constants.Z_SYNC_FLUSH : constants.BROTLI_OPERATION_FLUSH;
  return { stream, flushPart: () => new Promise((resolve) => stream.flush(kind, () => resolve())) };
}
