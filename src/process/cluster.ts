import cluster, { type Worker } from 'node:cluster';
import type { Config } from '../config';
import type { Logger } from '../logger';
import { memoryBudgetBytes, operatorNodeFlags, workerHeapFlags } from './heap';

/** Beyond the workers' own shutdown budget, how long the primary waits before it kills what is left. */
const PRIMARY_GRACE_MS = 12_000;
/** A worker that dies this soon after it was started counts as a failed start: the next restart waits longer. */
const HEALTHY_AFTER_MS = 10_000;
const RESTART_BASE_MS = 100;
const RESTART_MAX_MS = 10_000;

/** What the primary sends its workers for each SIGTERM or SIGINT it receives. */
interface ShutdownMessage {
  tablegraph: 'shutdown';
  signal: NodeJS.Signals;
}

function isShutdownMessage(message: unknown): message is ShutdownMessage {
  return typeof message === 'object' && message !== null && 'tablegraph' in message && message.tablegraph === 'shutdown';
}

/** Whether this process is a worker of a WORKERS > 1 primary. */
export const isClusterWorker = (): boolean => cluster.isWorker;

/**
 * In a worker that is still starting: the primary's shutdown, or a signal of its own (Ctrl-C reaches the whole
 * process group), ends it at once with 0, as it has nothing in flight to finish. Returns the unsubscribe, for when
 * the worker is ready and drains instead.
 */
export function exitWhileStarting(): () => void {
  const exit = () => process.exit(0);
  const unsubscribe = onPrimaryShutdown(exit);
  process.on('SIGTERM', exit);
  process.on('SIGINT', exit);
  return () => {
    unsubscribe();
    process.off('SIGTERM', exit);
    process.off('SIGINT', exit);
  };
}

/**
 * In a worker: `handler` hears each shutdown signal the primary relays. The primary relays rather than the worker
 * relying on its own signals, because in a container only PID 1 (the primary) receives SIGTERM. Returns the
 * unsubscribe.
 */
export function onPrimaryShutdown(handler: (signal: NodeJS.Signals) => void): () => void {
  const listener = (message: unknown) => {
    if (isShutdownMessage(message)) handler(message.signal);
  };
  process.on('message', listener);
  return () => process.off('message', listener);
}

interface Slot {
  worker: Worker;
  startedAt: number;
  /** Failed starts in a row (deaths within HEALTHY_AFTER_MS of the start). */
  failures: number;
}

/**
 * WORKERS > 1: this process serves nothing; it forks `config.workers` gateway processes that share the listening
 * port (node:cluster hands each new connection to the next worker in turn) and nothing else but what Redis shares.
 * A worker that dies while the primary is not stopping is logged and replaced, after a backoff that doubles with
 * each failed start in a row so a crash loop does not spin. SIGTERM/SIGINT goes to every worker, each drains as a
 * single gateway does (readiness 503, the shutdown delay, in-flight requests finish, exit 0); once all have
 * exited the primary exits 0, or 1 if any worker did not exit cleanly.
 */
export function runPrimary(config: Config, logger: Logger): void {
  const execArgv = [...process.execArgv, ...workerHeapFlags(config.workers, memoryBudgetBytes(), operatorNodeFlags())];
  cluster.setupPrimary({ execArgv });
  const slots = new Map<number, Slot>();
  const restarts = new Set<NodeJS.Timeout>();
  let stopping = 0;
  let unclean = false;

  const fork = (slot: number, failures: number) => {
    const worker = cluster.fork();
    slots.set(slot, { worker, startedAt: Date.now(), failures });
    worker.on('exit', (code, signal) => onExit(slot, worker, code, signal));
  };

  const onExit = (slot: number, worker: Worker, code: number | null, signal: string | null) => {
    const current = slots.get(slot);
    if (current?.worker !== worker) return;
    slots.delete(slot);
    const fields = { workerPid: worker.process.pid, code, signal };
    if (stopping > 0) {
      if (code !== 0) unclean = true;
      logger.info(fields, 'worker stopped');
      if (slots.size === 0) finish();
      return;
    }
    const failures = Date.now() - current.startedAt < HEALTHY_AFTER_MS ? current.failures + 1 : 1;
    const restartInMs = Math.min(RESTART_MAX_MS, RESTART_BASE_MS * 2 ** (failures - 1));
    logger.error({ ...fields, restartInMs }, 'worker exited unexpectedly; starting another');
    const timer = setTimeout(() => {
      restarts.delete(timer);
      fork(slot, failures);
    }, restartInMs);
    restarts.add(timer);
  };

  const finish = () => {
    logger.info({ exitCode: unclean ? 1 : 0 }, 'stopped');
    process.exit(unclean ? 1 : 0);
  };

  const onSignal = (signal: NodeJS.Signals) => {
    stopping += 1;
    if (stopping === 1) {
      logger.info({ signal, workers: slots.size }, 'stopping workers');
      for (const timer of restarts) clearTimeout(timer);
      restarts.clear();
      setTimeout(() => {
        logger.error('workers did not stop in time; killing them');
        for (const { worker } of slots.values()) worker.process.kill('SIGKILL');
        process.exit(1);
      }, config.shutdownDelayMs + config.drainTimeoutMs + PRIMARY_GRACE_MS).unref();
      if (slots.size === 0) return finish();
    }
    const message: ShutdownMessage = { tablegraph: 'shutdown', signal };
    for (const { worker } of slots.values()) if (worker.isConnected()) worker.send(message);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  logger.info({ workers: config.workers, execArgv }, 'starting workers');
  for (let slot = 0; slot < config.workers; slot++) fork(slot, 0);
}
