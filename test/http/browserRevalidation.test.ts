import { SAMPLE } from '../../src/sandbox';
import { launchOfflineBrowser, type OfflineBrowser } from '../support/browser';
import { LA_TERRAZZA, logLine, startStack, type Stack } from '../support/stack';

/** A GET answer in a real browser's HTTP cache (headless chromium): kept, revalidated with its ETag, answered 304. */
describe('GET answers in a browser', () => {
  let stack: Stack;
  let browser: OfflineBrowser;

  beforeAll(async () => {
    // The browser first: without chromium this fails at once, with no stack left open.
    browser = await launchOfflineBrowser();
    stack = await startStack();
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  it('revalidates a GET answer it holds: the gateway answers 304 and the page reads the kept body', async () => {
    const page = await browser.context.newPage();
    // Same origin as /graphql, so the page's fetch needs no CORS.
    await page.goto(`${stack.url}/healthz`);
    const date = SAMPLE.laTerrazza.busyDate(stack.sandbox.state);
    const url = `/graphql?${new URLSearchParams({ query: 'query Day($date: Date!) { reservations(date: $date, perPage: 50) { nodes { id status } } }', variables: JSON.stringify({ date }) }).toString()}`;
    const headers = { ...LA_TERRAZZA, 'apollo-require-preflight': 'true' };

    const seen = await page.evaluate(
      async ({ url, headers }) => {
        const first = await fetch(url, { headers: { ...headers, 'x-request-id': 'browser-first' } });
        const firstBody = await first.text();
        // `no-cache`: use the kept answer only once the server says it is still good (If-None-Match).
        const revalidate = { headers: { ...headers, 'x-request-id': 'browser-second' }, cache: 'no-cache' };
        const second = await fetch(url, revalidate);
        return { first: { status: first.status, etag: first.headers.get('etag'), body: firstBody }, second: { status: second.status, etag: second.headers.get('etag'), body: await second.text() } };
      },
      { url, headers },
    );

    expect(seen.first.status).toBe(200);
    expect(seen.first.etag).toMatch(/^"/);
    expect(JSON.parse(seen.first.body)).toHaveProperty('data.reservations.nodes');
    // The page gets the whole answer, which the gateway did not send again: the browser's cache served it.
    expect(seen.second).toEqual({ status: 200, etag: seen.first.etag, body: seen.first.body });
    expect(logLine(stack, 'browser-first')).toMatchObject({ httpStatus: 200 });
    expect(logLine(stack, 'browser-second')).toMatchObject({ httpStatus: 304, outcome: 'success' });
    await page.close();
  }, 30_000);
});
