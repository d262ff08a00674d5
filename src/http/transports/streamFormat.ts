import type { GraphQLFormattedError } from 'graphql';
import type { StreamResult } from '../../pipeline/stream';

/** One wire format of a subscription's events over HTTP (sse.ts, multipart.ts). */
export interface StreamFormat {
  readonly contentType: string;
  /** Written with the head, so that the client and proxies see the stream begin. */
  readonly opening: string;
  event(result: StreamResult): string;
  /** Written while no event comes, under proxies' idle timeouts. */
  readonly heartbeat: string;
  /** A failure of the stream itself (not of a read: those are events with errors), before its closing. */
  failure(errors: readonly GraphQLFormattedError[]): string;
  readonly closing: string;
}
