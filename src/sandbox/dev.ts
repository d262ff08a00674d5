import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { loadConfig } from '../config';
import { runGateway } from '../main';
import { devBanner, SAMPLE_CLIENTS_FILE, sandboxExplorer } from './devGuide';
import { devLogDestination } from './devLog';
import { startSandbox } from './index';

/**
 * `npm run dev`: the simulated reservation and POS services with sample data, and the gateway pointed at them.
 * Settings from the environment still apply (PORT, LOG_LEVEL, …); the upstream addresses are the sandbox's.
 */
async function main(): Promise<void> {
  // The wall clock moves the evening on, so a live view of today shows guests arriving and checks paid.
  const sandbox = await startSandbox({ clock: () => new Date() });
  const config = loadConfig({
    NODE_ENV: 'development',
    // One process on a laptop: nothing to share, even with NODE_ENV=production in the shell.
    SINGLE_REPLICA: 'true',
    LOG_LEVEL: 'info',
    // No load balancer to wait for on a laptop: Ctrl+C drains and exits at once.
    SHUTDOWN_DELAY_MS: '0',
    // The repo's own operations are trusted documents, so the apps can be tried by id (docs/clients.md, Trusted documents).
    TRUSTED_DOCUMENTS: join(__dirname, '..', '..', 'operations', 'generated', 'persisted-query-manifest.json'),
    // A partner with small limits, a first-party app and room for anonymous callers (the explorer): src/sandbox/clients.yaml.
    CLIENTS_FILE: SAMPLE_CLIENTS_FILE,
    ...process.env,
    RESERVATION_BASE_URL: sandbox.reservationUrl,
    POS_BASE_URL: sandbox.posUrl,
  });
  const gateway = await runGateway(config, { logDestination: devLogDestination({ level: config.logLevel }), explorer: sandboxExplorer(sandbox.state) });
  const { port } = gateway.server.address() as AddressInfo;
  const shown = config.host === '0.0.0.0' ? 'localhost' : config.host;
  process.stdout.write(devBanner({ explorerUrl: `http://${shown}:${port}/graphql`, reservationUrl: sandbox.reservationUrl, posUrl: sandbox.posUrl, state: sandbox.state, clientsFile: config.clients.file }));
}

main().catch((err: unknown) => {
  process.stderr.write(`npm run dev failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
