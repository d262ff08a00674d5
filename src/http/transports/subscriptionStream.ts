import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode } from '../../errors/codes';
import type { Logger } from '../../logger';
import type { RequestRecord } from '../../pipeline/record';
import type { GraphqlResponse } from '../../pipeline/types';
import { multipart } from './multipart';
import { sse } from './sse';

export interface SubscriptionStreamOptions {
  /** Holds a stream open past the drain of ordinary requests, and ends it on shutdown (ServerLifecycle.hold). */
  hold(res: ServerResponse, end: () => void): void;
  logger: Logger;
  /** Milliseconds between heartbeats while no event comes. Default 5000 (Apollo Router's multipart heartbeat). */
  heartbeatMs?: number;
}

/**
 * The route's `writeStream` for subscriptions over HTTP: the events in the format the request's Accept chose (the
 * executor noted it on the record), until the subscription completes, the client leaves or the gateway stops.
 */
export function subscriptionStreamWriter(options: SubscriptionStreamOptions) {
  const heartbeatMs = options.heartbeatMs ?? 5000;
  return async (_req: IncomingMessage, res: ServerResponse, response: GraphqlResponse, record: RequestRecord): Promise<void> => {
    if (!response.stream || !record.stream || record.stream.transport === 'ws') throw new Error('not a subscription over HTTP');
    const { results } = response.stream;
    const counted = record.stream;
    const format = counted.transport === 'sse' ? sse : multipart;
    res.statusCode = 200;
    for (const [name, value] of response.headers) res.setHeader(name, value);
    res.setHeader('content-type', format.contentType);
    res.setHeader('cache-control', 'no-store');
    // NGINX (and ingress-nginx) buffer a proxied response unless it says not to.
    res.setHeader('x-accel-buffering', 'no');
    res.write(format.opening);
    let ending = false;
    const end = () => {
      if (ending) return;
      ending = true;
      void results.return?.();
    };
    // The client left, or the gateway is stopping: the subscription completes and its last `next()` says done.
    res.once('close', end);
    options.hold(res, end);
    // The client may have left while the subscribe was admitted: its 'close' has passed already.
    if (res.destroyed || res.closed) end();
    const heartbeat = setInterval(() => {
      if (!res.writableNeedDrain) res.write(format.heartbeat);
    }, heartbeatMs);
    heartbeat.unref();
    try {
      for (;;) {
        const next = await results.next();
        if (next.done) break;
        counted.events += 1;
        // A slow reader: the next event is taken only once this one has left (meanwhile its poll keeps the newest).
        if (!res.write(format.event(next.value))) await drained(res);
      }
    } catch (err) {
      options.logger.error({ err, requestId: record.requestId }, 'a subscription stream failed');
      res.write(format.failure([{ message: 'Internal server error', extensions: { code: ErrorCode.INTERNAL_SERVER_ERROR } }]));
      end();
    } finally {
      clearInterval(heartbeat);
      res.end(format.closing);
    }
  };
}

/** Resolves once the response can take more, or has closed. */
function drained(res: ServerResponse): Promise<void> {
  if (res.destroyed || res.closed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}
