import type { GraphQLFormattedError } from 'graphql';
import type { StreamResult } from '../../pipeline/stream';
import type { StreamFormat } from './streamFormat';

/**
 * GraphQL over Server-Sent Events, the graphql-sse protocol's distinct-connections mode (its PROTOCOL.md): each result
 * an `event: next`, the end an `event: complete` (with the empty `data:` EventSource needs to fire it), comments
 * (`:`) as heartbeats. Yoga's `result-processor/sse.ts` writes the same.
 */
export const sse: StreamFormat = {
  contentType: 'text/event-stream; charset=utf-8',
  // Sent at once, so that the client and any proxy see the stream begin before the first event.
  opening: ':\n\n',
  event: (result: StreamResult) => `event: next\ndata: ${JSON.stringify(result)}\n\n`,
  heartbeat: ':\n\n',
  failure: (errors: readonly GraphQLFormattedError[]) => `event: next\ndata: ${JSON.stringify({ errors })}\n\n`,
  closing: 'event: complete\ndata:\n\n',
};
