import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname, join } from 'node:path';
import Negotiator from 'negotiator';
import { send as sendWhole } from '../send';
import { BOOT_SCRIPT, EXPLORER_CSS } from './client';

/** The first example of docs/clients.md (a test keeps the two equal): a day's reservations with their POS checks. */
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

/** Apollo's embeddable Sandbox; `_latest` is what Apollo Server's landing page loads. */
export const APOLLO_SANDBOX_SCRIPT = 'https://embeddable-sandbox.cdn.apollographql.com/_latest/embeddable-sandbox.umd.production.min.js';

/** A set of headers the explorer can pre-fill, named for the person choosing. */
export interface ExplorerVenue {
  /** In the page's URL (`?venue=laTerrazza`). */
  key: string;
  /** Shown in the venue switch. */
  name: string;
  headers: Readonly<Record<string, string>>;
  /** Shown beside the switch while this venue is chosen. */
  note?: string;
}

export interface ExplorerOptions {
  /** Serve the explorer. When false (production), a browser opening /graphql gets a page saying it is off. */
  enabled: boolean;
  /** Header sets to pre-fill, the first by default, the others one click away. Default: none. */
  venues?: readonly ExplorerVenue[];
  /** The operation pre-filled. Default: DAY_QUERY. */
  document?: string;
  /** Its variables. Default: `{ date: <today, UTC> }`. */
  variables?: Record<string, unknown>;
  /** Apollo Sandbox's script. Default: APOLLO_SANDBOX_SCRIPT. */
  sandboxScriptUrl?: string;
}

type Mode = 'auto' | 'graphiql';
type Asset = { type: string; load: () => Promise<string>; text?: Promise<string> };

const GRAPHQL_PATH = '/graphql';
/** Apart from /graphql, so no asset path can meet a GraphQL request. */
const ASSET_PREFIX = '/explorer/';
const HTML = 'text/html; charset=utf-8';
const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

/** A fixed list, so no request path reaches the file system; graphiql 4 and react 18 are the last with UMD builds. */
const ASSETS: Record<string, Asset> = {
  'boot.js': { type: JS, load: async () => BOOT_SCRIPT },
  'explorer.css': { type: CSS, load: async () => EXPLORER_CSS },
  'react.production.min.js': fromPackage('react', 'umd/react.production.min.js', JS),
  'react-dom.production.min.js': fromPackage('react-dom', 'umd/react-dom.production.min.js', JS),
  'graphiql.min.js': fromPackage('graphiql', 'graphiql.min.js', JS),
  'graphiql.min.css': fromPackage('graphiql', 'graphiql.min.css', CSS),
};

/** What boot.js loads for GraphiQL, scripts in load order. */
const GRAPHIQL_ASSETS = {
  scripts: ['react.production.min.js', 'react-dom.production.min.js', 'graphiql.min.js'].map((name) => ASSET_PREFIX + name),
  style: `${ASSET_PREFIX}graphiql.min.css`,
};

const send = (res: ServerResponse, status: number, type: string, body: string, headers: Record<string, string> = {}) =>
  sendWhole(res, status, type, body, { ...headers, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });

/** Whether `Accept` prefers `text/html` to both JSON types: a browser's navigation does, curl's `*\/*` does not. */
export function prefersHtml(accept: string | undefined): boolean {
  return new Negotiator({ headers: { accept } }).mediaType(['application/json', 'application/graphql-response+json', 'text/html']) === 'text/html';
}

/** `GET /graphql` from a browser (the explorer, or in production a page saying it is off) and `GET /explorer/…`. */
export function explorerRoute(options: ExplorerOptions): (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<boolean> {
  const venues = options.venues ?? [];
  const sandboxScriptUrl = options.sandboxScriptUrl ?? APOLLO_SANDBOX_SCRIPT;
  // Only the gateway and Apollo Sandbox's two hosts; inline styles because GraphiQL's editors set them.
  const csp = [
    "default-src 'self'",
    `script-src 'self' ${new URL(sandboxScriptUrl).origin}`,
    'frame-src https://sandbox.embed.apollographql.com',
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');

  return async (req, res, url) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    if (url.pathname === GRAPHQL_PATH && prefersHtml(req.headers.accept)) {
      if (!options.enabled) {
        send(res, 200, HTML, EXPLORER_OFF_HTML);
        return true;
      }
      const venue = venues.find((v) => v.key === url.searchParams.get('venue')) ?? venues[0];
      const mode: Mode = url.searchParams.get('explorer') === 'graphiql' ? 'graphiql' : 'auto';
      const config = {
        endpoint: GRAPHQL_PATH,
        document: options.document ?? DAY_QUERY,
        variables: options.variables ?? { date: new Date().toISOString().slice(0, 10) },
        headers: { ...venue?.headers },
        mode,
        sandboxScriptUrl,
        // How long the page waits for Sandbox's script before it shows GraphiQL instead.
        sandboxTimeoutMs: 4000,
        assets: GRAPHIQL_ASSETS,
      };
      send(res, 200, HTML, explorerHtml(config, venues, venue), { 'content-security-policy': csp });
      return true;
    }
    if (options.enabled && url.pathname.startsWith(ASSET_PREFIX)) {
      await sendAsset(res, url.pathname.slice(ASSET_PREFIX.length));
      return true;
    }
    return false;
  };
}

async function sendAsset(res: ServerResponse, name: string): Promise<void> {
  const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
  if (!asset) return send(res, 404, 'text/plain; charset=utf-8', 'Not found');
  try {
    // Read once: a megabyte of GraphiQL is not worth reading per request.
    send(res, 200, asset.type, await (asset.text ??= asset.load()));
  } catch {
    asset.text = undefined;
    // `npm ci --omit=dev` leaves GraphiQL out; Apollo Sandbox (online) still works.
    send(res, 404, 'text/plain; charset=utf-8', 'The offline explorer needs the development dependencies (npm ci)');
  }
}

function fromPackage(pkg: string, file: string, type: string): Asset {
  // The packages export neither their UMD files nor their folders: find the folder through package.json.
  return { type, load: () => readFile(join(dirname(require.resolve(`${pkg}/package.json`)), file), 'utf8') };
}

/** The explorer's page: the bar with the venue switch, and the element boot.js fills from the JSON config. */
function explorerHtml(config: { mode: Mode }, venues: readonly ExplorerVenue[], venue: ExplorerVenue | undefined): string {
  const link = (venueKey: string | undefined, mode: Mode, text: string, current = false) => {
    const query = new URLSearchParams(venueKey ? { venue: venueKey } : {});
    if (mode === 'graphiql') query.set('explorer', mode);
    return `<a href="?${escapeHtml(query.toString())}"${current ? ' aria-current="page"' : ''}>${escapeHtml(text)}</a>`;
  };
  const venueSwitch = venues.length === 0
    ? '<span class="note">No sample headers: add your own in the Headers tab.</span>'
    : `<span>Venue (headers): ${venues.map((v) => link(v.key, config.mode, v.name, v === venue)).join(' · ')}</span>`;
  const explorerSwitch = config.mode === 'graphiql'
    ? link(venue?.key, 'auto', 'try Apollo Sandbox')
    : link(venue?.key, 'graphiql', 'use the offline explorer');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Tablegraph explorer</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${ASSET_PREFIX}explorer.css">
<script type="application/json" id="explorer-config">${jsonForHtml(config)}</script>
<script src="${ASSET_PREFIX}boot.js" defer></script>
</head>
<body>
<header class="bar">
<strong>Tablegraph</strong>
<span id="explorer-name">Loading the explorer…</span>
${venueSwitch}
${venue?.note ? `<span class="note">${escapeHtml(venue.note)}</span>` : ''}
<span id="explorer-switch">${explorerSwitch}</span>
</header>
<main id="explorer"><p>Loading the explorer… (Apollo Sandbox when it can load, otherwise GraphiQL from this gateway)</p></main>
<noscript><p>The explorer needs JavaScript. GraphQL itself is at POST ${GRAPHQL_PATH}.</p></noscript>
</body>
</html>
`;
}

/** What a browser sees at /graphql in production: where the API is, and that the explorer is off. */
const EXPLORER_OFF_HTML = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Tablegraph GraphQL API</title></head>
<body>
<h1>Tablegraph GraphQL API</h1>
<p>This is a GraphQL endpoint: send <code>POST ${GRAPHQL_PATH}</code> with a JSON body
<code>{"query": "…", "variables": {…}}</code> and <code>content-type: application/json</code>
(queries also over <code>GET</code> with an <code>apollo-require-preflight: true</code> header).</p>
<p>The explorer is off in production. Run the gateway with <code>NODE_ENV=development</code>, or
<code>npm run dev</code> against the sample services, to explore the schema in a browser.</p>
</body>
</html>
`;

/** JSON inside a <script> element: nothing in it may close the element or open a comment. */
function jsonForHtml(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
