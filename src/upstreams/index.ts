import type { Config, UpstreamConfig } from '../config';
import type { Upstreams } from '../context';
import type { ServiceName, UpstreamError } from '../errors';
import type { Logger } from '../logger';
import { UpstreamHttp, type UpstreamCallRecord } from './http';
import type { CircuitStateName } from './resilience';

/** What the upstream transports report as they work: every call, circuit changes, retries. */
export interface UpstreamHooks {
  onCall?: (record: UpstreamCallRecord) => void;
  onCircuitStateChange?: (service: ServiceName, state: CircuitStateName) => void;
  onRetry?: (service: ServiceName, attempt: number, delayMs: number, error: UpstreamError) => void;
}

/** The long-lived transports, one per service, each with its own pool and resilience policies. */
export function createUpstreams(config: Config, hooks: UpstreamHooks = {}): Upstreams {
  const make = (service: ServiceName, upstream: UpstreamConfig) =>
    new UpstreamHttp({
      service,
      ...upstream,
      onCall: hooks.onCall,
      resilience: { ...upstream.resilience, onCircuitStateChange: hooks.onCircuitStateChange, onRetry: hooks.onRetry },
    });
  return { reservation: make('reservation', config.reservation), pos: make('pos', config.pos) };
}

/** Logs what an operator needs to see of the upstreams: circuit changes and retries. */
export function loggingHooks(logger: Logger): UpstreamHooks {
  return {
    onCircuitStateChange: (service, state) => {
      const log = state === 'closed' ? logger.info.bind(logger) : logger.warn.bind(logger);
      log({ upstream: service, circuit: state }, `circuit of the ${service} service is ${state}`);
    },
    onRetry: (service, attempt, delayMs, error) =>
      logger.debug({ upstream: service, attempt, delayMs: Math.round(delayMs), failure: error.failure, status: error.status }, 'retrying upstream call'),
  };
}
