import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { ErrorCode } from '../../errors/codes';
import type { RequestRecord } from '../../pipeline/record';
import type { StreamResult } from '../../pipeline/stream';
import type { GraphqlResponse } from '../../pipeline/types';
import { negotiateEncoding, partEncoder } from '../compression';
import { NO_STORE, VARY } from '../httpCaching';

/**
 * An incremental answer (`@defer`, `@stream`) as `multipart/mixed; deferSpec=20220824`, the parts as Apollo Server and
 * Apollo Router write them: `\r\n---` before each, `\r\n-----` after the last (`hasNext: false`). Each part is sent
 * (and, compressed, flushed) as soon as it is ready; the client leaving ends the execution's iterator.
 */
export interface MultipartOptions {
  /** RESPONSE_COMPRESSION: gzip or br, as `Accept-Encoding` asks, flushed part by part. */
  compression: boolean;
}

const PART_HEADERS = 'content-type: application/json; charset=utf-8\r\n\r\n';

export async function writeMultipartMixed(req: IncomingMessage, res: ServerResponse, response: GraphqlResponse, record: RequestRecord, options: MultipartOptions): Promise<void> {
  const results = response.stream!.results;
  const stream = (record.stream = { transport: 'multipart' as const, events: 0 });
  const encoding = options.compression ? negotiateEncoding(req.headers['accept-encoding']) : undefined;
  res.statusCode = response.status;
  for (const [key, value] of response.headers) res.setHeader(key, value);
  res.setHeader('cache-control', NO_STORE);
  res.setHeader('vary', VARY);
  if (encoding) res.setHeader('content-encoding', encoding);
  const encoder = encoding ? partEncoder(encoding) : undefined;
  encoder?.stream.pipe(res);
  const out: Writable = encoder?.stream ?? res;

  let left = false;
  const leave = () => {
    left = true;
    // Nothing reads the compressor any more: destroyed, its pending writes and flushes end instead of waiting.
    encoder?.stream.destroy();
    void results.return?.(undefined);
  };
  res.once('close', leave);
  // The client may have left while the operation ran: its 'close' has passed already.
  if (res.destroyed || res.closed) leave();
  const send = async (part: StreamResult) => {
    const chunk = `${stream.events === 0 ? '\r\n---\r\n' : ''}${PART_HEADERS}${JSON.stringify(part)}\r\n---${part.hasNext ? '' : '--'}\r\n`;
    await new Promise<void>((resolve) => out.write(chunk, () => resolve()));
    await encoder?.flushPart();
    stream.events += 1;
  };

  let ended = false;
  try {
    for await (const part of results) {
      if (left) break;
      await send(part);
      if (!part.hasNext) {
        ended = true;
        break;
      }
    }
  } catch {
    // Execution failed outside any field (a field's failure is an error in its part): the stream ends, said so.
    const op = record.operations.at(-1);
    if (op) op.errorCodes = [...new Set([...op.errorCodes, ErrorCode.INTERNAL_SERVER_ERROR])];
    if (!left) await send({ hasNext: false, errors: [{ message: 'Internal server error', extensions: { code: ErrorCode.INTERNAL_SERVER_ERROR } }] });
    ended = true;
  } finally {
    res.off('close', leave);
  }
  // An iterator that ended without `hasNext: false` still gets the closing boundary a client waits for.
  if (!ended && !left) await send({ hasNext: false });
  out.end();
  // Written out (or cut by the client): the stream is recorded once the response is over.
  await finished(res).catch(() => undefined);
}
