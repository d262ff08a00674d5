import type { Config, UpstreamConfig } from '../config';
import type { Upstreams } from '../context';
import type { Logger } from '../logger';
import type { UpstreamEvents } from './events';
import { UpstreamHttp } from './http';
import type { ServiceName } from '../errors/UpstreamError';

export { combineEvents, type UpstreamEvents } from './events';

/** The long-lived transports, one per service, each with its own pool and resilience policies. */
export function createUpstreams(config: Config, events: UpstreamEvents = {}): Upstreams {
  const make = (service: ServiceName, upstream: UpstreamConfig) =>
    new UpstreamHttp({
      service,
      ...upstream,
      onCall: events.onCall,
      resilience: { ...upstream.resilience, onCircuitStateChange: events.onCircuitStateChange, onRetry: events.onRetry },
    });
  return { reservation: make('reservation', config.reservation), pos: make('pos', config.pos) };
}

/** Logs what an operator needs to see of the upstreams: circuit changes and retries. */
export function loggingHooks(logger: Logger): UpstreamEvents {
  return {
    onCircuitStateChange: (service, state) => {
      const log = state === 'closed' ? logger.info.bind(logger) : logger.warn.bind(logger);
      log({ upstream: service, circuit: state }, `circuit of the ${service} service is ${state}`);
    },
    onRetry: (service, attempt, delayMs, error) =>
      logger.debug({ upstream: service, attempt, delayMs: Math.round(delayMs), failure: error.failure, status: error.status }, 'retrying upstream call'),
  };
}
