import { HeaderMap, type ApolloServer, type HTTPGraphQLRequest } from '@apollo/server';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { QueryLimits } from '../config';
import { requestIdFrom, type GatewayContext } from '../context';
import { credentialSpellingConflict } from '../credentials';
import type { Logger } from '../logger';
import type { GatewayMetrics } from '../observability/metrics';
import { withOperationSpan } from '../observability/tracing';
import { oldestCachedAgeSeconds } from '../upstreams/events';
import type { UpstreamCallRecord } from '../upstreams/http';
import { BodyTooLargeError, readBody } from './body';
import { outcomeOfResult, type OperationOutcome } from '../observability/operationOutcome';
import { logRequest } from './requestLogPlugin';
import { errorBody, JSON_TYPE } from './send';

/** One GraphQL HTTP request as the route's steps see it: method checked, body read and parsed. */
export interface GraphqlRequest {
  readonly method: 'GET' | 'POST';
  readonly url: URL;
  /** A request header by lower-cased name (the first value when repeated). */
  header: (lowerName: string) => string | undefined;
  /** The headers as Node received them (Apollo gets them as its HeaderMap, made only when Apollo runs the request). */
  readonly incomingHeaders: IncomingHttpHeaders;
  /** The parsed JSON body of a POST (an object, or an array for a batch); the raw text for other content types. */
  body: unknown;
  readonly requestId: string;
  /** `performance.now()` when the request arrived. */
  readonly started: number;
  /**
   * Fields the steps add to the request's log line (the client's name, what idempotency did). Never a secret:
   * the line is written whether the request reached Apollo or was answered by a step.
   */
  readonly logFields: Record<string, string>;
  /**
   * Every upstream call made for this HTTP request (all operations of a batch), as the transports report them, so a
   * step can tell whether any request went out (`sent`), e.g. idempotency's "refused before any upstream call".
   * The route always sets it; optional only so that requests built by hand in tests need not.
   */
  readonly upstreamCalls?: UpstreamCallRecord[];
}

/** A complete answer: what a step may write itself (a refusal, a replay) or get from the steps after it. */
export interface GraphqlResponse {
  status: number;
  headers: Map<string, string>;
  body: string;
  /** Whether Apollo's plugins saw the request (and so wrote its log line and counted it). */
  readonly reachedPlugins: boolean;
}

/** An answer a step writes itself (a refusal: it never reached Apollo): JSON, one error with its contract code. */
export function refusal(status: number, code: string, message: string, headers: Record<string, string> = {}): GraphqlResponse {
  return { status, headers: new Map([['content-type', JSON_TYPE], ...Object.entries(headers)]), body: JSON.stringify(errorBody(message, code)), reachedPlugins: false };
}

/**
 * A policy of the HTTP layer around execution (idempotency, client limits, trusted documents), composed as
 * undici composes interceptors: it may answer by itself, or call `next()` and work on what comes back.
 */
export type GraphqlStep = (request: GraphqlRequest, next: () => Promise<GraphqlResponse>) => Promise<GraphqlResponse>;

export interface GraphqlRouteOptions {
  apollo: ApolloServer<GatewayContext>;
  limits: QueryLimits;
  logger: Logger;
  metrics: GatewayMetrics;
  /** Builds the per-request context once Apollo has accepted the request's HTTP form. */
  context(request: GraphqlRequest): Promise<GatewayContext>;
  /** Outermost first. Default: none. */
  steps?: readonly GraphqlStep[];
  /**
   * Runs the request without Apollo when it is a compiled operation's (src/execution/compiledPath.ts); undefined
   * hands it to Apollo. Default: every request goes to Apollo.
   */
  compiled?: (request: GraphqlRequest) => Promise<GraphqlResponse> | undefined;
}

/** `POST /graphql` and `GET /graphql`: body parsing, the refusals before Apollo, the steps, then Apollo. */
export function graphqlRoute(options: GraphqlRouteOptions): (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void> {
  const { apollo, limits, logger, metrics } = options;
  const steps = options.steps ?? [];

  /** A request answered before Apollo's plugins saw it still gets its log line and its count. */
  function logUnseen(request: Pick<GraphqlRequest, 'started' | 'requestId' | 'logFields'>, response: Pick<GraphqlResponse, 'status' | 'body'>): void {
    const seconds = (performance.now() - request.started) / 1000;
    // A refusal is an error; a replayed response (idempotency) ended as its stored body says.
    const { outcome, errorCodes } = outcomeOf(response.body);
    logRequest(logger.child({ requestId: request.requestId }), {
      operationName: null,
      durationMs: seconds * 1000,
      outcome,
      errorCodes,
      httpStatus: response.status,
      upstreamCalls: [],
      extra: request.logFields,
    });
    metrics.observeOperation(null, outcome, seconds);
  }

  async function execute(request: GraphqlRequest): Promise<GraphqlResponse> {
    const compiled = options.compiled?.(request);
    if (compiled) return compiled;
    const headers = new HeaderMap();
    for (const [key, value] of Object.entries(request.incomingHeaders)) {
      if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
    }
    const httpGraphQLRequest: HTTPGraphQLRequest = { method: request.method, headers, search: request.url.search, body: request.body };
    // Apollo builds the context only for a request that passed its HTTP checks; the plugins log and count those.
    let reachedPlugins = false;
    const result = await apollo.executeHTTPGraphQLRequest({
      httpGraphQLRequest,
      context: () => {
        reachedPlugins = true;
        return options.context(request);
      },
    });
    let body: string;
    if (result.body.kind === 'complete') body = result.body.string;
    else {
      // Incremental delivery is not enabled in this schema; collect it if Apollo ever streams.
      body = '';
      for await (const chunk of result.body.asyncIterator) body += chunk;
    }
    return { status: result.status ?? 200, headers: new Map(result.headers), body, reachedPlugins };
  }

  const pipeline = steps.reduceRight<(request: GraphqlRequest) => Promise<GraphqlResponse>>(
    (next, step) => (request) => step(request, () => next(request)),
    execute,
  );

  return async (req, res, url) => {
    const started = performance.now();
    const requestId = requestIdFrom(firstHeader(req, 'x-request-id'));
    const logFields: Record<string, string> = {};
    res.setHeader('x-request-id', requestId);
    const refuse = (status: number, message: string, headers: Record<string, string> = {}) => {
      const response = refusal(status, 'BAD_REQUEST', message, headers);
      write(res, response);
      logUnseen({ started, requestId, logFields }, response);
    };
    if (req.method !== 'GET' && req.method !== 'POST') return refuse(405, 'Use GET or POST', { allow: 'GET, POST' });
    let body: unknown;
    try {
      body = await parseBody(req, limits.maxBodyBytes);
    } catch (err) {
      if (err instanceof BodyTooLargeError) return refuse(413, err.message);
      if (err instanceof SyntaxError) return refuse(400, 'The request body is not valid JSON');
      throw err;
    }
    if (Array.isArray(body) && body.length > Math.max(limits.maxBatchSize, 1)) {
      return refuse(400, limits.maxBatchSize > 0 ? `A batch may hold at most ${limits.maxBatchSize} operations` : 'Batched requests are not accepted');
    }
    const request: GraphqlRequest = { method: req.method, url, header: (name) => firstHeader(req, name), incomingHeaders: req.headers, body, requestId, started, logFields, upstreamCalls: [] };
    // One credential header under both spellings with different values: refused before any step or upstream call.
    const conflict = credentialSpellingConflict(request.header);
    if (conflict !== undefined) {
      const response = refusal(400, 'BAD_USER_INPUT', conflict);
      write(res, response);
      return logUnseen(request, response);
    }
    // The server span covers the steps too, so a refusal or a replay is traced like an execution.
    const response = await withOperationSpan({ method: req.method, headers: req.headers }, () => pipeline(request));
    if (!response.reachedPlugins) logUnseen(request, response);
    // `Age` (RFC 9111 §5.1): the oldest kept upstream answer the response used; none when it used none.
    const age = oldestCachedAgeSeconds(request.upstreamCalls ?? []);
    if (age !== undefined) response.headers.set('age', String(age));
    write(res, response);
  };
}

function write(res: ServerResponse, response: GraphqlResponse): void {
  res.statusCode = response.status;
  for (const [key, value] of response.headers) res.setHeader(key, value);
  res.end(response.body);
}

function firstHeader(req: IncomingMessage, lowerName: string): string | undefined {
  const value = req.headers[lowerName];
  return Array.isArray(value) ? value[0] : value;
}

/** JSON bodies are parsed here; anything else is left for Apollo to refuse (and its CSRF check to see). */
async function parseBody(req: IncomingMessage, limit: number): Promise<unknown> {
  if (req.method !== 'POST') return undefined;
  const text = await readBody(req, limit);
  const type = req.headers['content-type'] ?? '';
  if (!/^application\/(graphql-response\+)?json/i.test(type)) return text;
  return text === '' ? undefined : (JSON.parse(text) as unknown);
}

/** How a response written without Apollo's plugins ended (a refusal, or a stored response replayed), read off its body. */
function outcomeOf(text: string): { outcome: OperationOutcome; errorCodes: string[] } {
  try {
    const body: unknown = JSON.parse(text);
    if (typeof body !== 'object' || body === null) return { outcome: 'error', errorCodes: [] };
    const { data, errors } = body as { data?: unknown; errors?: unknown };
    return outcomeOfResult({ data, errors: Array.isArray(errors) ? (errors as Array<{ extensions?: { code?: unknown } }>) : undefined });
  } catch {
    return { outcome: 'error', errorCodes: [] };
  }
}
