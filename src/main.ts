import { ConfigError, loadConfig, type Config } from './config';
import { createLogger } from './logger';
import { createGateway, type Gateway } from './server';

/** Process entry: config → server → listen → drain on signal. */
export async function runGateway(config: Config, options: { pretty?: boolean } = {}): Promise<Gateway> {
  const logger = createLogger({ level: config.logLevel, pretty: options.pretty });
  const gateway = createGateway({ config, logger });
  await gateway.start();
  await new Promise<void>((resolve, reject) => {
    gateway.server.once('error', reject);
    gateway.server.listen(config.port, config.host, () => resolve());
  });
  logger.info({ port: config.port, host: config.host, env: config.env }, 'gateway listening');

  let stopping = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'draining');
    gateway.stop().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
  return gateway;
}

if (require.main === module) {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
  runGateway(config).catch((err: unknown) => {
    process.stderr.write(`Gateway failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
