import { GraphQLError, parse, type ExecutionArgs, type ExecutionResult, type GraphQLFormattedError, type GraphQLSchema } from 'graphql';
import { CloseCode, handleProtocols, makeServer, type SubscribePayload } from 'graphql-ws';
import type { IncomingMessage, Server } from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import type { GatewayContext } from '../../context';
import { ErrorCode } from '../../errors/codes';
import type { Logger } from '../../logger';
import { createRequestRecord, type RequestRecord } from '../../pipeline/record';
import type { ResultStream } from '../../pipeline/stream';
import { ending } from '../../pipeline/streamEnd';
import { refusal, type GraphqlPipeline, type GraphqlRequest } from '../../pipeline/types';
import { isPlainObject } from '../../upstreams/record';
import { operationsOfBody } from '../operationRequests';

export interface WsTransportOptions {
  /** The gateway's HTTP server: the WebSocket is upgraded from its `/graphql`. */
  server: Server;
  /** The route's pipeline (answer, finish): each subscribe is one request of it. */
  pipeline: GraphqlPipeline;
  /** The context of one request, as the route builds it. */
  context(request: GraphqlRequest): Promise<GatewayContext>;
  /** Only to satisfy graphql-ws's execution arguments: the pipeline has executed already. */
  schema: GraphQLSchema;
  /** MAX_BODY_BYTES: the largest message. */
  maxPayload: number;
  /** LIVE_MAX_SUBSCRIPTIONS_PER_CONNECTION. */
  maxSubscriptionsPerConnection: number;
  logger: Logger;
  /** Milliseconds between pings; a socket that does not answer one within as long is cut. Default 12000 (graphql-ws's). */
  keepAliveMs?: number;
}

/** How long clients have to answer the close frame (1001) before their sockets are cut. */
const CLOSE_GRACE_MS = 1000;

/**
 * What graphql-ws is handed for an admitted subscription: never validated nor executed, it only makes graphql-ws call
 * `subscribe`, which returns the events the pipeline answered with.
 */
const STREAM_DOCUMENT = parse('subscription Stream { __typename }');

/** An admitted subscription, handed from `onSubscribe` to `subscribe` as the execution's context value. */
interface Admitted {
  readonly stream: ResultStream;
  readonly record: RequestRecord;
}

/**
 * GraphQL over WebSocket (the `graphql-transport-ws` protocol of graphql-ws) on `/graphql`. A connection's
 * `connection_init` payload holds its headers (browsers cannot set a WebSocket's); each subscribe message is read by
 * the one reader, answered by the pipeline as a POST with those headers would be, and recorded when it ends.
 */
export function wsTransport(options: WsTransportOptions): { close(): Promise<void> } {
  const { pipeline, logger } = options;
  const keepAliveMs = options.keepAliveMs ?? 12_000;
  // The formatted errors of a refusal, by the GraphQLError graphql-ws is given for each (it insists on those).
  const formatted = new WeakMap<GraphQLError, GraphQLFormattedError>();

  /** A refusal's formatted errors as the GraphQLErrors graphql-ws sends in an error message. */
  function errorsOf(response: { body: string | Buffer }): GraphQLError[] {
    let errors: GraphQLFormattedError[] = [];
    try {
      errors = (JSON.parse(response.body.toString()) as { errors?: GraphQLFormattedError[] }).errors ?? [];
    } catch {
      // An answer that is not JSON is no GraphQL answer: said as an internal error below.
    }
    if (errors.length === 0) errors = [{ message: 'Internal server error', extensions: { code: ErrorCode.INTERNAL_SERVER_ERROR } }];
    return errors.map((e) => {
      const error = new GraphQLError(e.message);
      formatted.set(error, e);
      return error;
    });
  }

  async function admit(headers: Record<string, string>, payload: SubscribePayload, held: number): Promise<ExecutionArgs | GraphQLError[]> {
    const record = createRequestRecord(headers['x-request-id']);
    record.stream = { transport: 'ws', events: 0 };
    // graphql-ws counts this subscription among the connection's before asking.
    if (held > options.maxSubscriptionsPerConnection) {
      const max = options.maxSubscriptionsPerConnection;
      const response = refusal(429, ErrorCode.RATE_LIMITED, `A connection may hold at most ${max} subscriptions (LIVE_MAX_SUBSCRIPTIONS_PER_CONNECTION); complete one first or open another connection`);
      pipeline.finish(record, response, false);
      return errorsOf(response);
    }
    // graphql-ws requires a string query: a document named by id comes with an empty one.
    const { query, ...rest } = payload;
    let context: Promise<GatewayContext> | undefined;
    const request: GraphqlRequest = {
      method: 'POST',
      url: new URL('http://gateway.invalid/graphql'),
      header: (name) => headers[name],
      // What Apollo reads of the HTTP request it is handed: a JSON POST.
      incomingHeaders: { ...headers, 'content-type': 'application/json', accept: 'application/graphql-response+json' },
      read: operationsOfBody(query === '' ? rest : payload),
      record,
      context: () => (context ??= options.context(request)),
    };
    const response = await pipeline.answer(request);
    if (!response.stream) {
      pipeline.finish(record, response, false);
      return errorsOf(response);
    }
    const admitted: Admitted = { stream: response.stream, record };
    return { schema: options.schema, document: STREAM_DOCUMENT, contextValue: admitted };
  }

  const server = makeServer<Record<string, unknown> | undefined, { socket: WebSocket; request: IncomingMessage }>({
    async onSubscribe(ctx, _id, payload) {
      const headers: Record<string, string> = {};
      // The headers of a WebSocket's requests: the string properties of its `connection_init` payload.
      for (const [name, value] of Object.entries(ctx.connectionParams ?? {})) if (typeof value === 'string') headers[name.toLowerCase()] = value;
      return admit(headers, payload, Object.keys(ctx.subscriptions).length);
    },
    subscribe(args) {
      const { stream, record } = args.contextValue as Admitted;
      // Counted as graphql-ws sends them; recorded once, when they end or the client completes.
      const count = () => {
        if (record.stream) record.stream.events += 1;
      };
      return ending(stream.results, () => pipeline.finish(record, { status: 200 }, false), count) as AsyncIterableIterator<ExecutionResult>;
    },
    // Events and refusals carry errors formatted as HTTP formats them: sent as they are.
    onNext: (_ctx, _id, _payload, _args, result) => result,
    onError: (_ctx, _id, _payload, errors) => errors.map((e) => formatted.get(e) ?? { message: e.message }),
  });

  const wss = new WebSocketServer({ server: options.server, path: '/graphql', maxPayload: options.maxPayload, handleProtocols });
  wss.on('connection', (socket, request) => {
    let pongWait: NodeJS.Timeout | undefined;
    const ping = setInterval(() => {
      if (socket.readyState !== socket.OPEN) return;
      pongWait = setTimeout(() => socket.terminate(), keepAliveMs);
      socket.once('pong', () => clearTimeout(pongWait));
      socket.ping();
    }, keepAliveMs);
    const closed = server.opened(
      {
        protocol: socket.protocol,
        send: (data) => new Promise<void>((resolve, reject) => (socket.readyState === socket.OPEN ? socket.send(data, (err) => (err ? reject(err) : resolve())) : resolve())),
        close: (code, reason) => socket.close(code, reason),
        onMessage: (cb) =>
          socket.on('message', (data: Buffer) => {
            cb(withQueryString(data.toString('utf8'))).catch((err: unknown) => {
              logger.error({ err }, 'a WebSocket message could not be handled');
              socket.close(CloseCode.InternalServerError, 'Internal server error');
            });
          }),
      },
      { socket, request },
    );
    socket.once('close', (code, reason) => {
      clearTimeout(pongWait);
      clearInterval(ping);
      void closed(code, reason.toString('utf8'));
    });
  });

  return {
    /** Closes every WebSocket with 1001 (going away): their subscriptions complete and are recorded. */
    async close() {
      for (const socket of wss.clients) socket.close(1001, 'Going away');
      // A client that never answers the close frame would hold the shutdown for ws's 30 s close timeout.
      const grace = setTimeout(() => {
        for (const socket of wss.clients) socket.terminate();
      }, CLOSE_GRACE_MS);
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      clearTimeout(grace);
    },
  };
}

/**
 * graphql-ws closes the whole socket (4400) on a subscribe whose `query` is not a string. Without one (a document
 * named by id alone, or nothing at all) it gets the empty one the protocol needs: the reader then finds the id, or the
 * pipeline refuses that subscription alone with an error message.
 */
function withQueryString(data: string): string {
  if (!data.includes('"subscribe"')) return data;
  let message: unknown;
  try {
    message = JSON.parse(data);
  } catch {
    return data;
  }
  if (!isPlainObject(message) || message.type !== 'subscribe' || !isPlainObject(message.payload)) return data;
  const { query } = message.payload;
  if (query !== undefined && query !== null) return data;
  return JSON.stringify({ ...message, payload: { ...message.payload, query: '' } });
}
