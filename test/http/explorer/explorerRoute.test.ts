import { DAY_QUERY, prefersHtml } from '../../../src/http/explorer';
import { sandboxExplorer } from '../../../src/sandbox/devGuide';
import { SAMPLE, SANDBOX_CREDENTIALS } from '../../../src/sandbox';
import { startStack, type Stack } from '../../support/stack';

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/** The page's JSON config, as boot.js reads it. */
function configOf(html: string): Record<string, unknown> {
  const json = /<script type="application\/json" id="explorer-config">(.*?)<\/script>/s.exec(html)?.[1];
  if (json === undefined) throw new Error('no explorer config in the page');
  return JSON.parse(json) as Record<string, unknown>;
}

describe('explorerRoute', () => {
  describe('outside production', () => {
    let stack: Stack;
    beforeAll(async () => {
      stack = await startStack({ explorer: (sandbox) => sandboxExplorer(sandbox.state) });
    });
    afterAll(() => stack.close());

    it('serves a browser the explorer page with the day query, the busy date and La Terrazza\'s headers', async () => {
      const res = await fetch(`${stack.url}/graphql`, { headers: { accept: BROWSER } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const config = configOf(await res.text());
      expect(config).toMatchObject({
        endpoint: '/graphql',
        document: DAY_QUERY,
        variables: { date: SAMPLE.laTerrazza.busyDate(stack.sandbox.state) },
        headers: SANDBOX_CREDENTIALS.laTerrazza,
        mode: 'auto',
      });
    });

    it('pre-fills the second venue\'s headers when the switch asks for it, and GraphiQL at once on request', async () => {
      const html = await (await fetch(`${stack.url}/graphql?venue=bistroNord&explorer=graphiql`, { headers: { accept: BROWSER } })).text();
      expect(configOf(html)).toMatchObject({ headers: SANDBOX_CREDENTIALS.bistroNord, mode: 'graphiql' });
      expect(html).toContain('FEATURE_DISABLED');
    });

    it('lets the page load scripts only from itself and Apollo Sandbox, fonts and connections only from itself', async () => {
      const csp = (await fetch(`${stack.url}/graphql`, { headers: { accept: BROWSER } })).headers.get('content-security-policy') ?? '';
      const directives = new Map(csp.split(';').map((d) => { const [name, ...values] = d.trim().split(/\s+/); return [name, values]; }));
      expect(directives.get('script-src')).toEqual(["'self'", 'https://embeddable-sandbox.cdn.apollographql.com']);
      expect(directives.get('font-src')).toEqual(["'self'", 'data:']);
      expect(directives.get('connect-src')).toEqual(["'self'"]);
    });

    it('serves GraphiQL and React from the project\'s own dependencies', async () => {
      for (const name of ['boot.js', 'react.production.min.js', 'react-dom.production.min.js', 'graphiql.min.js']) {
        const res = await fetch(`${stack.url}/explorer/${name}`);
        expect({ name, status: res.status, type: res.headers.get('content-type') }).toEqual({ name, status: 200, type: 'text/javascript; charset=utf-8' });
      }
      const css = await fetch(`${stack.url}/explorer/graphiql.min.css`);
      expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
      expect(await css.text()).not.toMatch(/fonts\.googleapis|@import\s+url\(["']?https?:/);
    });

    it('serves no other path under /explorer/', async () => {
      for (const path of ['/explorer/package.json', '/explorer/../package.json', '/explorer/%2e%2e/package.json', '/explorer/']) {
        expect({ path, status: (await fetch(`${stack.url}${path}`)).status }).toEqual({ path, status: 404 });
      }
    });

    it('leaves API clients\' GET /graphql to GraphQL', async () => {
      const url = `${stack.url}/graphql?query=${encodeURIComponent('{ employees(perPage: 1) { nodes { id } } }')}`;
      for (const accept of ['application/json', '*/*', 'application/graphql-response+json']) {
        const res = await fetch(url, { headers: { accept, 'apollo-require-preflight': 'true', ...SANDBOX_CREDENTIALS.laTerrazza } });
        const body = (await res.json()) as { data?: { employees: { nodes: unknown[] } } };
        expect({ accept, nodes: body.data?.employees.nodes.length }).toEqual({ accept, nodes: 1 });
      }
    });
  });

  describe('in production', () => {
    let stack: Stack;
    beforeAll(async () => {
      stack = await startStack({ env: { NODE_ENV: 'production', SINGLE_REPLICA: 'true' } });
    });
    afterAll(() => stack.close());

    it('tells a browser where the API is and that the explorer is off', async () => {
      const res = await fetch(`${stack.url}/graphql`, { headers: { accept: BROWSER } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const html = await res.text();
      expect(html).toContain('POST /graphql');
      expect(html).toMatch(/explorer is off/);
      expect(html).not.toMatch(/<script/);
    });

    it('keeps JSON answers for API clients', async () => {
      const res = await fetch(`${stack.url}/graphql?query=${encodeURIComponent('{ __typename }')}`, { headers: { accept: 'application/json' } });
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(((await res.json()) as { errors: Array<{ extensions: { code: string } }> }).errors[0].extensions.code).toBe('BAD_REQUEST');
    });

    it('serves none of the explorer\'s files', async () => {
      expect((await fetch(`${stack.url}/explorer/graphiql.min.js`)).status).toBe(404);
      expect((await fetch(`${stack.url}/explorer/boot.js`)).status).toBe(404);
    });
  });
});

describe('prefersHtml', () => {
  it('is true for a browser navigation', () => {
    expect(prefersHtml('text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8')).toBe(true);
    expect(prefersHtml('text/html')).toBe(true);
  });

  it('is false for GraphQL clients, curl and requests without Accept', () => {
    expect(prefersHtml('application/json')).toBe(false);
    expect(prefersHtml('application/graphql-response+json, application/json;q=0.9')).toBe(false);
    expect(prefersHtml('*/*')).toBe(false);
    expect(prefersHtml(undefined)).toBe(false);
    expect(prefersHtml('')).toBe(false);
  });

  it('weighs text/html against JSON by q', () => {
    expect(prefersHtml('application/json, text/html;q=0.5')).toBe(false);
    expect(prefersHtml('text/html, application/json;q=0.5')).toBe(true);
    expect(prefersHtml('text/html;q=0')).toBe(false);
  });
});
