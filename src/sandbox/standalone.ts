import { z } from 'zod';
import { SANDBOX_CREDENTIALS } from './credentials';
import { SAMPLE } from './data';
import { startSandbox } from './index';

/**
 * `npm run sandbox`: the two simulated services alone, on fixed ports, with the sample data and the evening moving on
 * with the wall clock, as `npm run dev` has them; for smoke-testing `npm start` or the image (docs/operations.md).
 */
const Settings = z.object({
  SANDBOX_HOST: z.string().min(1).default('127.0.0.1'),
  SANDBOX_RESERVATION_PORT: z.coerce.number().int().min(0).max(65535).default(4001),
  SANDBOX_POS_PORT: z.coerce.number().int().min(0).max(65535).default(4002),
});

async function main(): Promise<void> {
  const read = Settings.safeParse(process.env);
  if (!read.success) {
    const problems = read.error.issues.map((i) => `  - ${i.path.join('.')}: ${i.message}`);
    process.stderr.write(`Invalid configuration:\n${problems.join('\n')}\n`);
    process.exit(1);
  }
  const settings = read.data;
  const sandbox = await startSandbox({
    host: settings.SANDBOX_HOST,
    reservationPort: settings.SANDBOX_RESERVATION_PORT,
    posPort: settings.SANDBOX_POS_PORT,
    clock: () => new Date(),
    // Runs for hours: keeping every request would only grow.
    recordRequests: false,
  });
  process.stdout.write(
    [
      '',
      '  The simulated services are running (the sample data of npm run dev; the evening moves on with the clock).',
      `  RESERVATION_BASE_URL=${sandbox.reservationUrl}`,
      `  POS_BASE_URL=${sandbox.posUrl}`,
      `  BUSY_DATE=${SAMPLE.laTerrazza.busyDate(sandbox.state)}`,
      '',
      '  A gateway against them (docs/operations.md, "Smoke test"):',
      `    npm run build && RESERVATION_BASE_URL=${sandbox.reservationUrl} POS_BASE_URL=${sandbox.posUrl} SINGLE_REPLICA=true \\`,
      '      TRUSTED_DOCUMENTS=operations/generated/persisted-query-manifest.json npm start',
      '',
      `  La Terrazza's headers: ${JSON.stringify(SANDBOX_CREDENTIALS.laTerrazza)}`,
      '',
    ].join('\n'),
  );
  const stop = () => {
    void sandbox.close().then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`npm run sandbox failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
