import type { Page } from 'playwright-core';
import { SAMPLE, SANDBOX_CREDENTIALS } from '../../src/sandbox';
import { sandboxExplorer } from '../../src/sandbox/devGuide';
import { eventually } from '../support/gatewayProcess';
import { launchOfflineBrowser, type OfflineBrowser } from '../support/browser';
import { startStack, type Stack } from '../support/stack';

const LIVE = `subscription Live($date: Date!) {
  reservations(date: $date, perPage: 3) { pageInfo { totalCount } nodes { id } }
}`;

/** The offline GraphiQL runs a subscription over the gateway's WebSocket, with the headers editor as connection_init. */
describe('the offline explorer and live subscriptions', () => {
  let stack: Stack;
  let browser: OfflineBrowser;
  let page: Page;

  beforeAll(async () => {
    [stack, browser] = await Promise.all([
      startStack({ env: { LIVE_POLL_SECONDS: '0.2' }, explorer: (sandbox) => ({ ...sandboxExplorer(sandbox.state), document: LIVE }) }),
      launchOfflineBrowser(),
    ]);
    page = await browser.context.newPage();
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  it('shows the first event of the subscription, read with the venue headers', async () => {
    await page.goto(`${stack.url}/graphql?explorer=graphiql`);
    await page.waitForSelector('body[data-explorer="graphiql"]', { timeout: 15_000 });
    expect(await page.locator('.graphiql-editor-tool').innerText()).toContain(SANDBOX_CREDENTIALS.laTerrazza['Pos-Access-Token']);
    await page.locator('.graphiql-execute-button').click();
    const result = page.locator('.result-window');
    await result.getByText('"totalCount"').waitFor({ timeout: 10_000 });
    const shown = await result.innerText();
    expect(shown).toContain(`"totalCount": ${SAMPLE.laTerrazza.busyDateReservationCount}`);
    expect(shown).not.toContain('"errors"');
    // Stopping the subscription leaves the gateway with none open.
    await page.locator('.graphiql-execute-button').click();
    const open = async () => (await stack.gateway.metrics.registry.getSingleMetric('tablegraph_live_subscriptions')!.get()).values[0]?.value;
    expect(await eventually(async () => (await open()) === 0)).toBe(true);
  }, 40_000);
});
