import { ASSET_PREFIX, GRAPHIQL_SCRIPTS, GRAPHIQL_STYLE } from './assets';

/** A set of headers the explorer can pre-fill, named for the person choosing. */
export interface ExplorerVenue {
  /** In the page's URL (`?venue=laTerrazza`). */
  key: string;
  /** Shown in the venue switch. */
  name: string;
  headers: Readonly<Record<string, string>>;
  /** Shown beside the switch while this venue is chosen (what is special about it). */
  note?: string;
}

/** What the page hands boot.js (src/http/explorer/client.ts). */
export interface ExplorerPageConfig {
  endpoint: string;
  document: string;
  variables: Record<string, unknown>;
  headers: Record<string, string>;
  /** `auto`: Apollo Sandbox, GraphiQL when Sandbox's script cannot load; `graphiql`: GraphiQL at once. */
  mode: 'auto' | 'graphiql';
  sandboxScriptUrl: string;
  sandboxTimeoutMs: number;
  assets: { scripts: string[]; style: string };
}

export interface ExplorerPage {
  config: ExplorerPageConfig;
  venues: readonly ExplorerVenue[];
  venue: ExplorerVenue | undefined;
}

/**
 * Only the gateway and Apollo Sandbox's two hosts: no fonts, images or beacons from anywhere else. Styles may be
 * inline because GraphiQL's editors set them.
 */
export function explorerCsp(sandboxScriptUrl: string): string {
  const sandboxScriptOrigin = new URL(sandboxScriptUrl).origin;
  return [
    "default-src 'self'",
    `script-src 'self' ${sandboxScriptOrigin}`,
    'frame-src https://sandbox.embed.apollographql.com',
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

/** The explorer's page: the bar with the venue switch, and the element boot.js fills. */
export function explorerHtml(page: ExplorerPage): string {
  const { config, venues, venue } = page;
  const link = (params: { venue?: string; explorer?: string }, text: string, current: boolean) => {
    const query = new URLSearchParams();
    const venueKey = params.venue ?? venue?.key;
    if (venueKey) query.set('venue', venueKey);
    const mode = params.explorer ?? (config.mode === 'graphiql' ? 'graphiql' : undefined);
    if (mode) query.set('explorer', mode);
    return `<a href="?${escapeHtml(query.toString())}"${current ? ' aria-current="page"' : ''}>${escapeHtml(text)}</a>`;
  };
  const venueSwitch = venues.length === 0
    ? '<span class="note">No sample headers: add your own in the Headers tab.</span>'
    : `<span>Venue (headers): ${venues.map((v) => link({ venue: v.key }, v.name, v === venue)).join(' · ')}</span>`;
  const explorerSwitch = config.mode === 'graphiql'
    ? link({ explorer: 'auto' }, 'try Apollo Sandbox', false)
    : link({ explorer: 'graphiql' }, 'use the offline explorer', false);
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
<noscript><p>The explorer needs JavaScript. GraphQL itself is at POST ${escapeHtml(config.endpoint)}.</p></noscript>
</body>
</html>
`;
}

/** What a browser sees at /graphql in production: where the API is, and that the explorer is off. */
export function explorerOffHtml(endpoint: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Tablegraph GraphQL API</title></head>
<body>
<h1>Tablegraph GraphQL API</h1>
<p>This is a GraphQL endpoint: send <code>POST ${escapeHtml(endpoint)}</code> with a JSON body
<code>{"query": "…", "variables": {…}}</code> and <code>content-type: application/json</code>
(queries also over <code>GET</code> with an <code>apollo-require-preflight: true</code> header).</p>
<p>The explorer is off in production. Run the gateway with <code>NODE_ENV=development</code>, or
<code>npm run dev</code> against the sample services, to explore the schema in a browser.</p>
</body>
</html>
`;
}

export const EXPLORER_ASSETS = { scripts: GRAPHIQL_SCRIPTS.map((name) => `${ASSET_PREFIX}${name}`), style: `${ASSET_PREFIX}${GRAPHIQL_STYLE}` };

/** JSON inside a <script> element: nothing in it may close the element or open a comment. */
function jsonForHtml(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
