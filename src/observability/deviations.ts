import type { Logger } from '../logger';
import type { Deviation, DeviationSink } from '../upstreams/record';
import type { GatewayMetrics } from './metrics';

export interface UpstreamDeviationsOptions {
  logger: Logger;
  /** Where each deviation is counted (`tablegraph_upstream_deviations_total`); none in unit tests. */
  metrics?: GatewayMetrics;
}

/**
 * How the upstreams' answers differ from the gateway's reading of their documents: every deviation is counted, and
 * the first of each kind (route, field, what came) is logged at warn, once per gateway, so operators learn the real
 * shape from traffic without a line per request. No value is ever logged: only the field's path and a JSON type or
 * reason. The set of kinds is bounded: fields come from our schemas, and what came from a short fixed list.
 */
export class UpstreamDeviations implements DeviationSink {
  private readonly logged = new Set<string>();

  constructor(private readonly options: UpstreamDeviationsOptions) {}

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
