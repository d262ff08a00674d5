import type { Logger } from '../logger';
import type { Deviation, DeviationSink } from '../upstreams/record';
import type { GatewayMetrics } from './metrics';

/**
 * Counts every upstream deviation and logs the first of each kind (route, field, what came) once per gateway, so
 * operators learn the real shape without a line per request. Never a value: the field's path and a JSON type or reason.
 */
export class UpstreamDeviations implements DeviationSink {
  private readonly logged = new Set<string>();

  /** `metrics`: none in unit tests. */
  constructor(private readonly options: { logger: Logger; metrics?: GatewayMetrics }) {}

  report(deviation: Deviation): void {
    this.options.metrics?.countDeviation(deviation);
    const kind = `${deviation.service} ${deviation.route} ${deviation.field} ${deviation.received}`;
    if (this.logged.has(kind)) return;
    this.logged.add(kind);
    this.options.logger.warn(
      { upstream: deviation.service, route: deviation.route, field: deviation.field, received: deviation.received },
      'upstream answer differs from the documents',
    );
  }
}
