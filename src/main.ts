import type { AddressInfo } from 'node:net';
import { ConfigError, loadConfig, type Config } from './config';
import { createLogger, type Logger } from './logger';
import type { Tracing } from './observability/tracing';
import { exitWhileStarting, isClusterWorker, onPrimaryShutdown, runPrimary } from './process/cluster';
import { compileCacheHook } from './process/compileCache';
import { applyHeapPolicy, heapFlagAround } from './process/heap';
import type { Gateway, GatewayDeps } from './server';
import { messageOf } from './errors/errorFields';

/** How long after readiness a start that compiled the bundle from its source writes the bundle's code cache. */
const COMPILE_CACHE_DELAY_MS = 1000;

/** Beyond the shutdown delay and the drain timeout, how long closing the pools and flushing spans may take. */
const CLEANUP_GRACE_MS = 10_000;

/**
 * Process entry: config → tracing → server → listen → start → drain on signal. The server listens before it has
 * started, so `/healthz` answers at once and `/readyz` says 503 until GraphQL can be served.
 */
export async function runGateway(config: Config, options: { pretty?: boolean; explorer?: GatewayDeps['explorer'] } = {}): Promise<Gateway> {
  const heap = applyHeapPolicy(config.heapGrowingPercent);
  const worker = isClusterWorker();
  const stopEarly = worker ? exitWhileStarting() : undefined;
  const logger = createLogger({ level: config.logLevel, pretty: options.pretty, fields: worker ? { pid: process.pid } : undefined });
  // Required here rather than imported at the top: a WORKERS > 1 primary serves nothing and need not run the
  // gateway's modules (module by module it does not load them; in `npm start`'s bundle their code is there, but not
  // run). `require`, not `import()`, which would go through the ESM loader.
  const { startTracing } = require('./observability/tracing') as typeof import('./observability/tracing');
  const { createGateway } = require('./server') as typeof import('./server');
  for (const warning of config.warnings) logger.warn(warning);
  const tracing = startTracing(config.tracing);
  const gateway = createGateway({ config, logger, explorer: options.explorer });
  await new Promise<void>((resolve, reject) => {
    gateway.server.once('error', reject);
    gateway.server.listen(config.port, config.host, () => resolve());
  });
  const { port } = gateway.server.address() as AddressInfo;
  const compileCache = compileCacheHook();
  // `used`: V8 took the bundle's code cache; `compiled`: the bundle was compiled from its source; absent: not a bundle.
  const code = compileCache && (compileCache.cacheAccepted ? 'used' : 'compiled');
  logger.info({ port, host: config.host, env: config.env, tracing: tracing !== undefined, heap, compileCache: code }, 'gateway listening');
  await gateway.start();
  logger.info('gateway ready');
  stopEarly?.();
  if (compileCache) {
    // Once ready, what the start compiled is what the next start's cache should hold (src/process/compileCache.ts).
    const save = () => {
      const saved = compileCache.save(heapFlagAround(heap));
      if (saved.outcome === 'written') logger.info({ path: saved.path }, 'compile cache written');
      else if (saved.outcome === 'kept') logger.info({ path: saved.path }, 'compile cache kept: V8 refused it under this process\'s flags');
      else if (saved.outcome === 'failed') logger.warn({ path: saved.path, error: saved.error }, 'compile cache not written');
      return saved;
    };
    if (compileCache.writeOnly) {
      const saved = save();
      await gateway.stop();
      process.exit(saved.outcome === 'failed' ? 1 : 0);
    }
    // A serving process writes it a moment after readiness, not in the way of its first requests; not a WORKERS > 1
    // worker, which runs with a heap size flag of its own that the single process's starts would refuse.
    if (!worker) setTimeout(save, COMPILE_CACHE_DELAY_MS).unref();
  }
  stopOnSignal(gateway, config, logger, tracing);
  return gateway;
}

/**
 * SIGTERM or SIGINT: readiness turns 503 and the gateway keeps serving for SHUTDOWN_DELAY_MS (load balancers take
 * the replica out meanwhile); then it stops accepting connections, lets the requests in flight finish within
 * DRAIN_TIMEOUT_MS, closes its upstream pools, flushes its spans and exits 0. A second signal skips the delay.
 * A WORKERS > 1 worker hears the primary's signals as messages, and may get the same signal directly too (Ctrl-C
 * reaches the whole process group): the two sources are counted apart, so one Ctrl-C is not taken for two.
 */
function stopOnSignal(gateway: Gateway, config: Config, logger: Logger, tracing: Tracing | undefined): void {
  let skipDelay: (() => void) | undefined;
  let stopping = false;
  const seen = { direct: 0, relayed: 0 };
  const onSignal = (signal: NodeJS.Signals, source: keyof typeof seen = 'direct') => {
    seen[source] += 1;
    if (stopping) {
      if (Math.max(seen.direct, seen.relayed) < 2) return;
      logger.info({ signal }, 'second signal: skipping the shutdown delay');
      skipDelay?.();
      return;
    }
    stopping = true;
    logger.info({ signal, shutdownDelayMs: config.shutdownDelayMs, drainTimeoutMs: config.drainTimeoutMs }, 'draining');
    gateway.drain();
    setTimeout(() => {
      logger.error('shutdown did not finish in time; exiting');
      process.exit(1);
    }, config.shutdownDelayMs + config.drainTimeoutMs + CLEANUP_GRACE_MS).unref();
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, config.shutdownDelayMs);
      skipDelay = () => {
        clearTimeout(timer);
        resolve();
      };
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
  if (isClusterWorker()) onPrimaryShutdown((signal) => onSignal(signal, 'relayed'));
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
  const primary = config.workers > 1 && !isClusterWorker();
  if (primary) runPrimary(config, createLogger({ level: config.logLevel, fields: { pid: process.pid } }));
  else runGateway(config).catch((err: unknown) => {
    process.stderr.write(`Gateway failed to start: ${messageOf(err)}\n`);
    process.exit(1);
  });
}
