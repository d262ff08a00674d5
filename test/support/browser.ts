import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/** Debian's chromium (npm test's pretest, tools/setup/testDeps.sh, installs it when missing); CHROMIUM_PATH points elsewhere. Never a downloaded build. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export interface OfflineBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

/**
 * Headless chromium with a fresh profile that can reach loopback and nothing else: every other host name fails to
 * resolve, as on a machine without internet access, and none of chromium's own background traffic runs.
 */
export async function launchOfflineBrowser(): Promise<OfflineBrowser> {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`No chromium at ${CHROMIUM_PATH}: run \`bash tools/setup/testDeps.sh\` (npm test runs it first) or \`sudo apt-get install -y chromium\`, or set CHROMIUM_PATH`);
  const profile = mkdtempSync(join(tmpdir(), 'tablegraph-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    viewport: { width: 1400, height: 900 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
