import type { GraphQLFormattedError } from 'graphql';
import type { StreamResult } from '../../pipeline/stream';
import type { StreamFormat } from './streamFormat';

const BOUNDARY = '\r\n--graphql';
const PART = '\r\ncontent-type: application/json; charset=utf-8\r\n\r\n';

/**
 * Apollo's multipart HTTP subscriptions (what Apollo Router serves and Apollo Client's `HttpLink` reads): each event a
 * part `{"payload": result}`, heartbeats `{}`, a failure of the stream itself `{"payload": null, "errors": […]}`, and
 * the closing boundary `--graphql--`. Each part ends with the boundary, so a client reads it as soon as it comes.
 */
export const multipart: StreamFormat = {
  contentType: 'multipart/mixed;boundary="graphql";subscriptionSpec="1.0"',
  opening: BOUNDARY,
  event: (result: StreamResult) => `${PART}${JSON.stringify({ payload: result })}${BOUNDARY}`,
  heartbeat: `${PART}{}${BOUNDARY}`,
  failure: (errors: readonly GraphQLFormattedError[]) => `${PART}${JSON.stringify({ payload: null, errors })}${BOUNDARY}`,
  closing: '--\r\n',
};
