import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { APOLLO_SANDBOX_SCRIPT, DAY_QUERY } from '../../../src/http/explorer';
import { SAMPLE_CLIENTS_FILE, sandboxExplorer } from '../../../src/sandbox/devGuide';
import { SAMPLE, SANDBOX_CREDENTIALS } from '../../../src/sandbox';
import { launchOfflineBrowser, type OfflineBrowser } from '../../support/browser';
import { startStack, type Stack } from '../../support/stack';

/** The explorer in a real browser on a machine without internet access. */
describe('explorer in a browser', () => {
  let stack: Stack;
  let browser: OfflineBrowser;
  let page: Page;
  const requested: string[] = [];

  beforeAll(async () => {
    // The browser first: without chromium this fails at once, with no stack left open.
    browser = await launchOfflineBrowser();
    // As npm run dev runs it: with the sample clients file, whose anonymous policy serves the explorer.
    stack = await startStack({ env: { CLIENTS_FILE: SAMPLE_CLIENTS_FILE }, explorer: (sandbox) => sandboxExplorer(sandbox.state) });
    page = await browser.context.newPage();
    page.on('request', (request) => void requested.push(request.url()));
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  const editorText = (selector: string) => page.locator(selector).first().innerText();

  it('falls back to GraphiQL offline, pre-filled, and shows the answer of the day query', async () => {
    await page.goto(`${stack.url}/graphql`);
    await page.waitForSelector('body[data-explorer="graphiql"]', { timeout: 15_000 });
    const date = SAMPLE.laTerrazza.busyDate(stack.sandbox.state);
    expect(await editorText('.graphiql-query-editor')).toContain('query Day($date: Date!)');
    expect(await page.locator('.graphiql-editor-tool').innerText()).toContain(SANDBOX_CREDENTIALS.laTerrazza['Pos-Access-Token']);

    await page.locator('.graphiql-execute-button').click();
    const result = page.locator('.result-window');
    await result.getByText('"totalCount"').waitFor({ timeout: 10_000 });

    // The same query straight to the gateway: the browser's answer must carry its data.
    const expected = await stack.gql<{ reservations: { nodes: Array<{ id: string }> } }>(
      'query ($date: Date!) { reservations(date: $date, perPage: 50) { nodes { id } } }',
      { date },
    );
    const shown = await result.innerText();
    expect(shown).toContain(`"totalCount": ${SAMPLE.laTerrazza.busyDateReservationCount}`);
    expect(shown).toContain(expected.body.data!.reservations.nodes[0].id);
    expect(shown).not.toContain('"errors"');
    // Served under the clients file's anonymous policy, introspection included.
    const clients = stack.logs.filter((l) => l.includes('"graphql request"')).map((l) => (JSON.parse(l) as { client?: string }).client);
    expect(new Set(clients)).toEqual(new Set(['anonymous']));
  }, 30_000);

  it('asks nothing of the outside but Apollo Sandbox\'s script: no fonts, no telemetry', () => {
    const outside = requested.filter((url) => !url.startsWith(stack.url) && !url.startsWith('data:'));
    expect([...new Set(outside)]).toEqual([APOLLO_SANDBOX_SCRIPT]);
  });

  it('switches to the second venue\'s headers', async () => {
    await page.getByRole('link', { name: 'Bistro Nord' }).click();
    await page.waitForSelector('body[data-explorer="graphiql"]', { timeout: 15_000 });
    expect(page.url()).toContain('venue=bistroNord');
    expect(await page.locator('.graphiql-editor-tool').innerText()).toContain(SANDBOX_CREDENTIALS.bistroNord['Pos-Access-Token']);
  }, 30_000);
});

/**
 * The online branch, with Apollo's CDN replaced by a loopback stand-in (the real one is out of reach here): when
 * the script loads, the page embeds Sandbox with telemetry off and the sample's headers, query and date.
 */
describe('explorer in a browser, with a Sandbox script that loads', () => {
  let stack: Stack;
  let browser: OfflineBrowser;
  let cdn: Server;

  beforeAll(async () => {
    cdn = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      res.end(`window.EmbeddedSandbox = function (options) {
        window.sandboxOptions = JSON.parse(JSON.stringify(options));
        document.querySelector(options.target).appendChild(document.createElement('iframe'));
      };`);
    });
    await new Promise<void>((resolve) => cdn.listen(0, '127.0.0.1', resolve));
    const script = `http://127.0.0.1:${(cdn.address() as AddressInfo).port}/embeddable-sandbox.umd.production.min.js`;
    browser = await launchOfflineBrowser();
    stack = await startStack({ explorer: (sandbox) => ({ ...sandboxExplorer(sandbox.state), sandboxScriptUrl: script }) });
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
    await new Promise((resolve) => cdn?.close(resolve));
  });

  it('embeds Apollo Sandbox with telemetry off and the sample pre-filled', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${stack.url}/graphql`);
    await page.waitForSelector('body[data-explorer="sandbox"]', { timeout: 15_000 });
    expect(await page.locator('#explorer iframe').count()).toBe(1);
    expect(await page.evaluate('window.sandboxOptions')).toEqual({
      target: '#explorer',
      initialEndpoint: `${stack.url}/graphql`,
      initialState: {
        document: DAY_QUERY,
        variables: { date: SAMPLE.laTerrazza.busyDate(stack.sandbox.state) },
        headers: SANDBOX_CREDENTIALS.laTerrazza,
        includeCookies: false,
      },
      endpointIsEditable: false,
      hideCookieToggle: false,
      runTelemetry: false,
      allowDynamicStyles: false,
    });
  }, 30_000);
});
