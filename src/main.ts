import nodeModule from 'node:module';

// Before the gateway's modules load: Node 22+ keeps compiled code on disk for later starts; Node 20 has no such call.
(nodeModule as typeof nodeModule & { enableCompileCache?: () => unknown }).enableCompileCache?.();

import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { ConfigError, loadConfig, type Config } from './config';
import type { DestinationStream } from 'pino';
import { createLogger, type Logger } from './logger';
import { startTracing, type Tracing } from './observability/tracing';
import { createGateway, type Gateway, type GatewayDeps } from './server';
import { messageOf } from './errors/errorFields';

/** Beyond the shutdown delay and the drain timeout, how long closing the pools and flushing spans may take. */
const CLEANUP_GRACE_MS = 10_000;

/** Listens before the gateway has started, so `/healthz` answers at once and `/readyz` says 503 until it can serve. */
export async function runGateway(config: Config, options: { logDestination?: DestinationStream; explorer?: GatewayDeps['explorer'] } = {}): Promise<Gateway> {
  const logger = createLogger({
    level: config.logLevel,
    traceIds: config.tracing.endpoint !== undefined,
    ...(options.logDestination ? { destination: options.logDestination } : {}),
  });
  for (const warning of config.warnings) logger.warn(warning);
  const tracing = startTracing(config.tracing);
  const gateway = createGateway({ config, logger, explorer: options.explorer });
  gateway.server.listen(config.port, config.host);
  await once(gateway.server, 'listening');
  const { port } = gateway.server.address() as AddressInfo;
  logger.info({ port, host: config.host, env: config.env, tracing: tracing !== undefined }, 'gateway listening');
  await gateway.start();
  logger.info('gateway ready');
  stopOnSignal(gateway, config, logger, tracing);
  return gateway;
}

/**
 * SIGTERM or SIGINT: readiness turns 503 and the gateway keeps serving for SHUTDOWN_DELAY_MS (load balancers take
 * the replica out meanwhile), then drains, flushes its spans and exits 0. A second signal skips the delay.
 */
function stopOnSignal(gateway: Gateway, config: Config, logger: Logger, tracing: Tracing | undefined): void {
  // Set by the first signal.
  let skipDelay: (() => void) | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (skipDelay) {
      logger.info({ signal }, 'second signal: skipping the shutdown delay');
      skipDelay();
      return;
    }
    logger.info({ signal, shutdownDelayMs: config.shutdownDelayMs, drainTimeoutMs: config.drainTimeoutMs }, 'draining');
    gateway.drain();
    setTimeout(() => {
      logger.error('shutdown did not finish in time; exiting');
      process.exit(1);
    }, config.shutdownDelayMs + config.drainTimeoutMs + CLEANUP_GRACE_MS).unref();
    new Promise<void>((resolve) => {
      skipDelay = resolve;
      setTimeout(resolve, config.shutdownDelayMs);
    })
      .then(() => gateway.stop())
      .then(() => tracing?.shutdown())
      .then(
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
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
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
    process.stderr.write(`Gateway failed to start: ${messageOf(err)}\n`);
    process.exit(1);
  });
}
