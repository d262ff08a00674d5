import type { HTTPGraphQLRequest } from '@apollo/server';
import type { IncomingMessage } from 'node:http';
import type { QueryLimits } from '../config';
import { isPlainObject } from '../upstreams/record';

/** By id (APQ's extension without a query, or `documentId` lower-cased without `sha256:`), as text, or not at all. */
export type DocumentAsk =
  | { kind: 'id'; id: string; via: 'persistedQuery' | 'documentId' }
  | { kind: 'text'; query: string; apqHash?: string }
  | { kind: 'none' };

/** One operation, read once with Apollo's leniency (`null` is absent); the body is parsed nowhere else. */
export interface OperationRequest {
  /** The document text: as sent, or the text its id resolved to (`resolvedBy`). */
  query?: string;
  operationName?: string;
  variables?: Record<string, unknown>;
  extensions?: Record<string, unknown>;
  readonly ask: DocumentAsk;
  /** Set when the id was resolved to `query`: a trusted document's manifest body, or a registered APQ text. */
  resolvedBy?: 'trusted' | 'apq';
  /** Whether Apollo would accept its HTTP form; steps leave a malformed one for Apollo to refuse. */
  readonly wellFormed: boolean;
  /** The object as the client sent it (a POST's), handed to Apollo unchanged unless its document was resolved. */
  readonly sent: unknown;
}

/** A refusal of the HTTP form before any operation is read (400, 405, 413). */
export class UnreadableRequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The whole HTTP request as read once. */
export interface ReadRequest {
  readonly method: 'GET' | 'POST';
  /** Empty when the body holds no operation Apollo could read: Apollo refuses it. */
  readonly operations: OperationRequest[];
  readonly batched: boolean;
  /** The parsed JSON body of a POST (the raw text for other content types); undefined for a GET. */
  readonly body: unknown;
}

/** Reads a GET or POST once, as graphql-http's `parseRequestParams`; other content types stay text for Apollo to refuse. */
export async function readOperationRequests(req: IncomingMessage, url: URL, limits: Pick<QueryLimits, 'maxBodyBytes' | 'maxBatchSize'>): Promise<ReadRequest> {
  if (req.method === 'GET') return { method: 'GET', operations: [fromSearch(url.searchParams)], batched: false, body: undefined };
  if (req.method !== 'POST') throw new UnreadableRequestError(405, 'Use GET or POST');
  const text = await readBody(req, limits.maxBodyBytes);
  const type = req.headers['content-type'] ?? '';
  if (!/^application\/(graphql-response\+)?json/i.test(type)) return { method: 'POST', operations: [], batched: false, body: text };
  let body: unknown;
  try {
    body = text === '' ? undefined : (JSON.parse(text) as unknown);
  } catch {
    throw new UnreadableRequestError(400, 'The request body is not valid JSON');
  }
  return operationsOfBody(body, limits.maxBatchSize);
}

/** The operations of a POST's parsed JSON body: one object, or a batch of at most `maxBatchSize`. */
export function operationsOfBody(body: unknown, maxBatchSize = Infinity): ReadRequest {
  if (Array.isArray(body)) {
    if (body.length > Math.max(maxBatchSize, 1)) {
      throw new UnreadableRequestError(400, maxBatchSize > 0 ? `A batch may hold at most ${maxBatchSize} operations` : 'Batched requests are not accepted');
    }
    return { method: 'POST', operations: body.map(fromObject), batched: true, body };
  }
  return { method: 'POST', operations: isPlainObject(body) && Object.keys(body).length > 0 ? [fromObject(body)] : [], batched: false, body };
}

/** Reads the body, refusing it as soon as it passes `limit` bytes. */
async function readBody(req: IncomingMessage, limit: number): Promise<string> {
  const tooLarge = () => new UnreadableRequestError(413, `Request body is larger than ${limit} bytes`);
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge();
  // Listeners rather than `for await`: the stream's async iterator costs more than the small body it reads.
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (err?: Error) => {
      req.off('data', onData).off('end', onEnd).off('error', done).off('close', onClose);
      if (err) reject(err);
      else resolve(chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks, size).toString('utf8'));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      done(tooLarge());
      // As `for await` leaves a server request (Node's destroyer): unhooked from its socket, then destroyed, so the
      // connection stays to carry the 413.
      (req as { socket: unknown }).socket = null;
      req.destroy();
    };
    const onEnd = () => done();
    // Closed before its end without an error of its own: as the async iterator reports it.
    const onClose = () => done(Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
    req.on('data', onData).on('end', onEnd).on('error', done).on('close', onClose);
  });
}

/** A POST's operation, checked as Apollo's runHttpQuery checks it. */
function fromObject(item: unknown): OperationRequest {
  if (!isPlainObject(item) || Object.keys(item).length === 0) return { ask: { kind: 'none' }, wellFormed: false, sent: item };
  const { query, operationName, variables, extensions, documentId } = item;
  const wellFormed =
    (query === undefined || query === null || typeof query === 'string') &&
    (operationName === undefined || operationName === null || typeof operationName === 'string') &&
    (variables === undefined || variables === null || isPlainObject(variables)) &&
    (extensions === undefined || extensions === null || isPlainObject(extensions));
  return operation({ query, operationName, variables, extensions, documentId }, wellFormed, item);
}

/** A GET's operation; a parameter given twice or JSON that does not parse is malformed. */
function fromSearch(params: URLSearchParams): OperationRequest {
  let wellFormed = true;
  const once = (name: string): string | undefined => {
    const values = params.getAll(name);
    if (values.length > 1) wellFormed = false;
    return values[0];
  };
  const json = (name: string): unknown => {
    const value = once(name);
    if (value === undefined) return undefined;
    try {
      const parsed = JSON.parse(value) as unknown;
      if (!isPlainObject(parsed)) wellFormed = false;
      return parsed;
    } catch {
      wellFormed = false;
      return undefined;
    }
  };
  const fields = { query: once('query'), operationName: once('operationName'), variables: json('variables'), extensions: json('extensions'), documentId: once('documentId') };
  return operation(fields, wellFormed, undefined);
}

/** One object literal of one shape, whatever was sent: conditional spreads cost more than the rest of the reading. */
function operation(fields: Record<string, unknown>, wellFormed: boolean, sent: unknown): OperationRequest {
  const { query, operationName, variables, extensions } = fields;
  return {
    query: typeof query === 'string' ? query : undefined,
    operationName: typeof operationName === 'string' ? operationName : undefined,
    variables: isPlainObject(variables) ? variables : undefined,
    extensions: isPlainObject(extensions) ? extensions : undefined,
    ask: documentAsk(fields),
    resolvedBy: undefined,
    wellFormed,
    sent,
  };
}

function documentAsk(fields: Record<string, unknown>): DocumentAsk {
  if (typeof fields.documentId === 'string') {
    const id = fields.documentId.startsWith('sha256:') ? fields.documentId.slice('sha256:'.length) : fields.documentId;
    return { kind: 'id', id: id.toLowerCase(), via: 'documentId' };
  }
  const persisted = persistedQueryOf(fields.extensions);
  if (typeof fields.query === 'string' && fields.query !== '') return { kind: 'text', query: fields.query, apqHash: persisted };
  return persisted === undefined ? { kind: 'none' } : { kind: 'id', id: persisted, via: 'persistedQuery' };
}

/** Whether an id can name a persisted document at all (64 hex digits), before it is looked up. */
export function isWellFormedId(id: string): boolean {
  return /^[0-9a-f]{64}$/.test(id);
}

/** `extensions.persistedQuery.sha256Hash` of a version-1 persisted query; other versions are Apollo's to refuse. */
function persistedQueryOf(extensions: unknown): string | undefined {
  const persisted = isPlainObject(extensions) ? extensions.persistedQuery : undefined;
  return isPlainObject(persisted) && persisted.version === 1 && typeof persisted.sha256Hash === 'string' ? persisted.sha256Hash : undefined;
}

/** The operation as Apollo gets it: as sent, or, once its id was resolved, its text without the id. */
function apolloItem(op: OperationRequest): unknown {
  if (!op.resolvedBy || !isPlainObject(op.sent)) return op.sent;
  const { documentId: _id, extensions: _e, ...rest } = op.sent;
  const extensions = withoutPersistedQuery(op.extensions);
  return { ...rest, query: op.query, ...(extensions ? { extensions } : {}) };
}

function withoutPersistedQuery(extensions: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!extensions) return undefined;
  const { persistedQuery: _p, ...rest } = extensions;
  return Object.keys(rest).length > 0 ? rest : undefined;
}

/** What Apollo Server's executeHTTPGraphQLRequest gets for this request, with every resolved document as text. */
export function apolloRequest(read: ReadRequest, url: URL, headers: HTTPGraphQLRequest['headers']): HTTPGraphQLRequest {
  const { method } = read;
  const [first] = read.operations;
  if (method === 'GET') {
    if (!first?.resolvedBy) return { method, headers, search: url.search, body: undefined };
    const params = new URLSearchParams(url.search);
    params.set('query', first.query ?? '');
    params.delete('documentId');
    const extensions = withoutPersistedQuery(first.extensions);
    if (extensions) params.set('extensions', JSON.stringify(extensions));
    else params.delete('extensions');
    return { method, headers, search: `?${params.toString()}`, body: undefined };
  }
  if (!read.operations.some((op) => op.resolvedBy)) return { method, headers, search: url.search, body: read.body };
  return { method, headers, search: url.search, body: read.batched ? read.operations.map(apolloItem) : apolloItem(first) };
}

/**
 * A GET's operation as Apollo gets it in a POST's JSON body: for an event stream asked by GET (EventSource, curl),
 * since Apollo executes only queries from a GET. Its document as resolved; a malformed GET stays one for Apollo to refuse.
 */
export function getAsPost(read: ReadRequest): ReadRequest {
  const [op] = read.operations;
  if (read.method !== 'GET' || !op?.wellFormed) return read;
  const { query, operationName, variables } = op;
  const extensions = op.resolvedBy ? withoutPersistedQuery(op.extensions) : op.extensions;
  const documentId = !op.resolvedBy && op.ask.kind === 'id' && op.ask.via === 'documentId' ? op.ask.id : undefined;
  const fields = Object.entries({ query, operationName, variables, extensions, documentId }).filter(([, value]) => value !== undefined);
  return operationsOfBody(Object.fromEntries(fields));
}
