import { HeaderMap, type ApolloServer } from '@apollo/server';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { QueryLimits } from '../config';
import type { GatewayContext } from '../context';
import { credentialSpellingConflict } from '../credentials';
import { ErrorCode } from '../errors/codes';
import type { Logger } from '../logger';
import type { GatewayMetrics } from '../observability/metrics';
import { endOperationSpan, withOperationSpan } from '../observability/tracing';
import { oldestCachedAgeSeconds } from '../upstreams/events';
import type { UpstreamCallRecord } from '../upstreams/http';
import { createRequestRecord, requestLogLine, type OperationRecord, type RequestRecord } from '../pipeline/record';
import { answerOutcome, refusal, type AnswerOutcome, type CompiledExecutor, type GraphqlPipeline, type GraphqlRequest, type GraphqlResponse, type GraphqlStep } from '../pipeline/types';
import { compress } from './compression';
import { represent, type HttpAnswer } from './httpCaching';
import { SENT_AS_GET, subscriptionWire } from './transports/accept';
import { apolloRequest, getAsPost, readOperationRequests, UnreadableRequestError, type ReadRequest } from './operationRequests';
import { writeMultipartMixed } from './transports/multipartMixed';

export interface GraphqlRouteOptions {
  apollo: ApolloServer<GatewayContext>;
  limits: QueryLimits;
  logger: Logger;
  metrics: GatewayMetrics;
  context(request: GraphqlRequest): Promise<GatewayContext>;
  /** Outermost first. Default: none. */
  steps?: readonly GraphqlStep[];
  /** Runs compiled operations without Apollo (src/execution/compiledPath.ts). Default: every request goes to Apollo. */
  compiled?: CompiledExecutor;
  /** RESPONSE_COMPRESSION: gzip and br as `Accept-Encoding` asks. Default false. */
  compression?: boolean;
  /**
   * Writes an answer that is a stream (a subscription's events, an incremental answer's parts) in the wire format
   * the request negotiated, and resolves when the stream has ended or the client left. Default: none (no executor
   * answers with a stream).
   */
  writeStream?: (req: IncomingMessage, res: ServerResponse, response: GraphqlResponse, record: RequestRecord) => Promise<void>;
  /** Whether the gateway is still starting (Apollo not ready): `/graphql` is answered 503, and recorded. Default: never. */
  starting?: () => boolean;
}

/** The HTTP route of `/graphql`, and the pipeline behind it that the other transports run too. */
export interface GraphqlRoute extends GraphqlPipeline {
  (req: IncomingMessage, res: ServerResponse, url: URL): Promise<void>;
}

/** `POST /graphql` and `GET /graphql`: read once, the steps, an executor; whatever happened, written out once. */
export function graphqlRoute(options: GraphqlRouteOptions): GraphqlRoute {
  const { apollo, limits, logger, metrics } = options;
  const steps = options.steps ?? [];

  async function execute(request: GraphqlRequest): Promise<GraphqlResponse> {
    const compiled = await options.compiled?.run(request);
    if (compiled) return compiled;
    const headers = new HeaderMap();
    for (const [key, value] of Object.entries(request.incomingHeaders)) {
      if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
    }
    headers.delete(SENT_AS_GET);
    let read = request.read;
    const accept = request.header('accept');
    if (subscriptionWire(accept)) {
      // A subscription stream's refusals are JSON answers; Apollo writes no stream itself, so it must not refuse the
      // stream's Accept (406). The stream stays first: the executor reads from it which one to answer.
      headers.set('accept', `${accept}, application/graphql-response+json;q=0.01`);
      if (read.method === 'GET') {
        // An event stream asked by GET (EventSource, curl): Apollo executes only queries from a GET, so it gets the
        // POST of the same operation, marked so that a mutation is still refused as from a GET.
        read = getAsPost(read);
        headers.set('content-type', 'application/json');
        headers.set(SENT_AS_GET, 'true');
      }
    }
    let context: GatewayContext | undefined;
    const result = await apollo.executeHTTPGraphQLRequest({
      httpGraphQLRequest: apolloRequest(read, request.url, headers),
      context: async () => {
        context = await request.context();
        // One operation may be answered as a stream; a batch's are answered whole.
        if (!read.batched) context.answer.streamable = true;
        return context;
      },
    });
    // A subscription's executor answers with its events (src/live/liveSubscriptionsPlugin.ts), the incremental one
    // with its parts (src/execution/incrementalExecution.ts); the steps' headers stay.
    const stream = context?.answer.stream;
    if (stream?.kind === 'subscription') return { status: 200, headers: new Map([...result.headers].filter(([name]) => name !== 'content-type')), body: '', stream };
    if (stream) return { status: result.status ?? 200, headers: new Map(result.headers), body: '', stream };
    // Incremental delivery (@defer, @stream) needs graphql 17: Apollo answers whole.
    if (result.body.kind !== 'complete') throw new Error('Apollo streamed an answer');
    const status = result.status ?? 200;
    // Used only when no operation ran: Apollo refused the HTTP form (BadRequestError) or failed before execution.
    const outcome: AnswerOutcome = { outcome: 'error', errorCodes: [status >= 500 ? ErrorCode.INTERNAL_SERVER_ERROR : 'BAD_REQUEST'] };
    const response = { status, headers: new Map(result.headers), body: result.body.string, outcome };
    if (request.record.operations.length > 0) options.compiled?.learn(request, response);
    return response;
  }

  const compression = options.compression ?? false;
  const writeOther = options.writeStream ?? (() => Promise.reject(new Error('an executor answered with a stream, and the route writes none')));
  // Incremental answers have one wire format, written here; subscriptions' are the given writer's.
  const writeStream: NonNullable<GraphqlRouteOptions['writeStream']> = (req, res, response, record) =>
    response.stream?.kind === 'incremental' ? writeMultipartMixed(req, res, response, record, { compression }) : writeOther(req, res, response, record);

  const pipeline = steps.reduceRight<(request: GraphqlRequest) => Promise<GraphqlResponse>>(
    (next, step) => (request) => step(request, () => next(request)),
    execute,
  );

  /** The steps and the executor; a throw anywhere inside is answered 500 and still recorded. */
  async function answer(request: GraphqlRequest): Promise<GraphqlResponse> {
    const conflict = credentialSpellingConflict(request.header);
    if (conflict !== undefined) return refusal(400, ErrorCode.BAD_USER_INPUT, conflict);
    try {
      return await pipeline(request);
    } catch (err) {
      logger.error({ err, requestId: request.record.requestId }, 'request handling failed');
      request.record.operations.length = 0;
      return refusal(500, ErrorCode.INTERNAL_SERVER_ERROR, 'Internal server error');
    }
  }

  /** The one writer of a request's outcome: its log line, its count per operation, its span. */
  function finish(record: RequestRecord, response: Pick<GraphqlResponse, 'status' | 'outcome'>, batched: boolean): void {
    record.release?.release();
    const durationMs = performance.now() - record.started;
    const whole = answerOutcome(record, response);
    const operations: OperationRecord[] = record.operations.length > 0 ? record.operations : [{ operationName: null, ...whole, durationMs }];
    for (const op of operations) metrics.observeOperation(op.operationName, op.outcome, op.durationMs / 1000);
    const only = operations.length === 1 ? operations[0] : undefined;
    logger.info(
      requestLogLine(record, {
        operationName: only?.operationName ?? null,
        durationMs: roundMs(durationMs),
        outcome: whole.outcome,
        errorCodes: whole.errorCodes,
        // A WebSocket's subscription has no HTTP status of its own.
        httpStatus: record.stream?.transport === 'ws' ? undefined : response.status,
        operations: only ? undefined : operations.map(({ operationName, outcome, errorCodes }) => ({ operationName, outcome, errorCodes })),
        upstreamCalls: record.upstreamCalls.map(callSummary),
      }),
      'graphql request',
    );
    // A batch shares one span; naming it after one of its operations would mislead.
    endOperationSpan(whole, batched, batched || !only?.type ? undefined : only);
  }

  const route = async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> => {
    const record = createRequestRecord(firstHeader(req, 'x-request-id'));
    res.setHeader('x-request-id', record.requestId);
    // A request asking for a subscription stream is logged with its transport, refused or not.
    const wire = subscriptionWire(firstHeader(req, 'accept'));
    if (wire) record.stream = { transport: wire, events: 0 };
    /** An answer given before any operation is read: recorded as one request all the same. */
    const before = (refused: GraphqlResponse) => {
      const response = represent(refused, { method: req.method === 'GET' ? 'GET' : 'POST', header: (name) => firstHeader(req, name), compression });
      finish(record, response, false);
      return write(res, response, record);
    };
    // The contract has no code for "not yet"; the 503 with Retry-After is what tells a client to retry.
    if (options.starting?.()) return before(refusal(503, ErrorCode.INTERNAL_SERVER_ERROR, 'The gateway is starting; try again shortly', { 'retry-after': '1' }));
    let read: ReadRequest;
    try {
      read = await readOperationRequests(req, url, limits);
    } catch (err) {
      if (!(err instanceof UnreadableRequestError)) throw err;
      return before(refusal(err.status, 'BAD_REQUEST', err.message, err.status === 405 ? { allow: 'GET, POST' } : {}));
    }
    let context: Promise<GatewayContext> | undefined;
    const request: GraphqlRequest = {
      method: read.method,
      url,
      header: (name) => firstHeader(req, name),
      incomingHeaders: req.headers,
      read,
      record,
      context: () => (context ??= options.context(request)),
    };
    const response = await withOperationSpan({ method: read.method, headers: req.headers }, async () => {
      const answered = await answer(request);
      // A stream is recorded once it has ended, inside the request's span.
      if (answered.stream) {
        await writeStream(req, res, answered, record);
        finish(record, answered, read.batched);
        return answered;
      }
      // Its caching headers, and a 304 for a GET the client holds already, before it is recorded.
      const represented = represent(answered, { method: read.method, header: request.header, compression });
      finish(record, represented, read.batched);
      return represented;
    });
    if (!response.stream) await write(res, response, record);
  };
  return Object.assign(route, { answer, finish });
}

async function write(res: ServerResponse, response: HttpAnswer, record: RequestRecord): Promise<void> {
  res.statusCode = response.status;
  // `Age` (RFC 9111 §5.1): the oldest kept upstream answer the response used; none when it used none.
  const age = oldestCachedAgeSeconds(record.upstreamCalls);
  if (age !== undefined) res.setHeader('age', String(age));
  for (const [key, value] of response.headers) res.setHeader(key, value);
  if (!response.encoding) return void res.end(response.body);
  res.setHeader('content-encoding', response.encoding);
  res.end(await compress(response.body, response.encoding));
}

function firstHeader(req: IncomingMessage, lowerName: string): string | undefined {
  const value = req.headers[lowerName];
  return Array.isArray(value) ? value[0] : value;
}

/** What the log keeps of an upstream read; never headers or bodies. */
function callSummary(call: UpstreamCallRecord): Record<string, unknown> {
  return {
    service: call.service,
    method: call.method,
    route: call.route,
    status: call.status ?? null,
    failure: call.error?.failure,
    durationMs: roundMs(call.durationMs),
    source: call.source,
  };
}

function roundMs(ms: number): number {
  return Math.round(ms * 10) / 10;
}
