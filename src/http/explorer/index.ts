import type { IncomingMessage, ServerResponse } from 'node:http';
import Negotiator from 'negotiator';
import { ASSET_PREFIX, explorerAsset } from './assets';
import { EXPLORER_ASSETS, explorerCsp, explorerHtml, explorerOffHtml, type ExplorerVenue } from './page';

export type { ExplorerVenue };

/**
 * The first example of docs/clients.md, pre-filled in the explorer: a day's reservations with their POS checks. A
 * test keeps that copy equal to this one.
 */
export const DAY_QUERY = `query Day($date: Date!) {
  reservations(date: $date, perPage: 50) {
    pageInfo { totalCount hasNextPage }
    nodes {
      id date guestCount status
      customer { firstName lastName }
      check { alias status summary { totalAmount unpaidAmount } items { item { name } quantity } }
    }
  }
}
`;

/**
 * Whether a request's `Accept` header asks for a page rather than a GraphQL answer: `text/html` preferred to both JSON
 * types. A browser's navigation (`text/html,…,*\/*;q=0.8`) does; curl's `*\/*` and every GraphQL client
 * (`application/json`, `application/graphql-response+json`) do not, so API clients keep their JSON answers whatever
 * else they list.
 */
export function prefersHtml(accept: string | undefined): boolean {
  return new Negotiator({ headers: { accept } }).mediaType(['application/json', 'application/graphql-response+json', 'text/html']) === 'text/html';
}

/** Apollo's own address for the embeddable Sandbox; `_latest` is what Apollo Server's landing page loads. */
export const APOLLO_SANDBOX_SCRIPT = 'https://embeddable-sandbox.cdn.apollographql.com/_latest/embeddable-sandbox.umd.production.min.js';

export interface ExplorerOptions {
  /** Serve the explorer. When false (production), a browser opening /graphql gets a page saying it is off. */
  enabled: boolean;
  /** Header sets to pre-fill, the first by default, the others one click away. Default: none. */
  venues?: readonly ExplorerVenue[];
  /** The operation pre-filled. Default: DAY_QUERY, the day query of docs/clients.md. */
  document?: string;
  /** Its variables. Default: `{ date: <today, UTC> }`. */
  variables?: Record<string, unknown>;
  /** Apollo Sandbox's script. Default: APOLLO_SANDBOX_SCRIPT. */
  sandboxScriptUrl?: string;
  /** How long the page waits for Sandbox's script before it shows GraphiQL instead. Default: 4000 ms. */
  sandboxTimeoutMs?: number;
}

const GRAPHQL_PATH = '/graphql';

/**
 * `GET /graphql` from a browser (an `Accept` that prefers HTML): the explorer outside production, a short page
 * saying where the API is in production; `GET /explorer/…`: the explorer's files. Every other request, API
 * clients' GETs included, is left to the GraphQL route. Answers whether it handled the request.
 */
export function explorerRoute(options: ExplorerOptions): (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<boolean> {
  const venues = options.venues ?? [];
  const sandboxScriptUrl = options.sandboxScriptUrl ?? APOLLO_SANDBOX_SCRIPT;
  const csp = explorerCsp(sandboxScriptUrl);

  return async (req, res, url) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    if (url.pathname === GRAPHQL_PATH && prefersHtml(req.headers.accept)) {
      if (!options.enabled) {
        send(res, 200, 'text/html; charset=utf-8', explorerOffHtml(GRAPHQL_PATH));
        return true;
      }
      const venue = venues.find((v) => v.key === url.searchParams.get('venue')) ?? venues[0];
      const html = explorerHtml({
        venues,
        venue,
        config: {
          endpoint: GRAPHQL_PATH,
          document: options.document ?? DAY_QUERY,
          variables: options.variables ?? { date: new Date().toISOString().slice(0, 10) },
          headers: { ...venue?.headers },
          mode: url.searchParams.get('explorer') === 'graphiql' ? 'graphiql' : 'auto',
          sandboxScriptUrl,
          sandboxTimeoutMs: options.sandboxTimeoutMs ?? 4000,
          assets: EXPLORER_ASSETS,
        },
      });
      send(res, 200, 'text/html; charset=utf-8', html, { 'content-security-policy': csp });
      return true;
    }
    if (options.enabled && url.pathname.startsWith(ASSET_PREFIX)) {
      const answer = await explorerAsset(url.pathname.slice(ASSET_PREFIX.length));
      send(res, answer.status, answer.status === 200 ? answer.contentType : 'text/plain; charset=utf-8', answer.body);
      return true;
    }
    return false;
  };
}

function send(res: ServerResponse, status: number, contentType: string, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    ...headers,
    'content-type': contentType,
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  res.end(body);
}
