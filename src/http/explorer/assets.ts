import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { BOOT_SCRIPT, EXPLORER_CSS } from './client';

/** Where the explorer's files are served: apart from `/graphql`, so no asset path can meet a GraphQL request. */
export const ASSET_PREFIX = '/explorer/';

interface Asset {
  contentType: string;
  /** The file's text, or how to read it from the project's own dependencies. */
  load(): Promise<string>;
}

/**
 * GraphiQL's UMD build and the React 18 UMD files it runs on, straight from node_modules (development
 * dependencies: the explorer is off in production), plus the page's own script and style. A fixed list: no
 * request path ever reaches the file system. The versions are pinned in package.json because graphiql 5 and react 19
 * ship no UMD build: moving past them means bundling GraphiQL (and its editor workers) ourselves.
 */
const ASSETS: Record<string, Asset> = {
  'boot.js': { contentType: 'text/javascript; charset=utf-8', load: () => Promise.resolve(BOOT_SCRIPT) },
  'explorer.css': { contentType: 'text/css; charset=utf-8', load: () => Promise.resolve(EXPLORER_CSS) },
  'react.production.min.js': fromPackage('react', 'umd/react.production.min.js', 'text/javascript; charset=utf-8'),
  'react-dom.production.min.js': fromPackage('react-dom', 'umd/react-dom.production.min.js', 'text/javascript; charset=utf-8'),
  'graphiql.min.js': fromPackage('graphiql', 'graphiql.min.js', 'text/javascript; charset=utf-8'),
  'graphiql.min.css': fromPackage('graphiql', 'graphiql.min.css', 'text/css; charset=utf-8'),
};

/** The file names under ASSET_PREFIX that boot.js loads for the offline explorer, in load order. */
export const GRAPHIQL_SCRIPTS = ['react.production.min.js', 'react-dom.production.min.js', 'graphiql.min.js'] as const;
export const GRAPHIQL_STYLE = 'graphiql.min.css';

/** Read once, kept: a megabyte of GraphiQL is not worth reading per request. */
const cache = new Map<string, Promise<string>>();

export type AssetAnswer = { status: 200; contentType: string; body: string } | { status: 404; body: string };

/** The asset named by a path under ASSET_PREFIX; 404 for any other name or when its package is not installed. */
export async function explorerAsset(name: string): Promise<AssetAnswer> {
  const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
  if (!asset) return { status: 404, body: 'Not found' };
  let text = cache.get(name);
  if (!text) {
    text = asset.load();
    cache.set(name, text);
  }
  try {
    return { status: 200, contentType: asset.contentType, body: await text };
  } catch {
    cache.delete(name);
    // `npm ci --omit=dev` leaves GraphiQL out; Apollo Sandbox (online) still works.
    return { status: 404, body: 'The offline explorer needs the development dependencies (npm ci)' };
  }
}

function fromPackage(pkg: string, file: string, contentType: string): Asset {
  return {
    contentType,
    // The packages export neither their UMD files nor their folders: find the folder through package.json.
    load: () => readFile(join(dirname(require.resolve(`${pkg}/package.json`)), file), 'utf8'),
  };
}
