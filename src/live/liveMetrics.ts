import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** Upstream calls one poll made: a day view is one list call, plus one POS call per distinct check when selected. */
const CALL_BUCKETS = [0, 1, 2, 5, 10, 20, 50, 100, 150];

/** The live subscriptions' metrics, in the gateway's registry. */
export class LiveMetrics {
  private readonly open: Gauge;
  private readonly polls: Counter<'outcome'>;
  private readonly events: Counter;
  private readonly callsPerPoll: Histogram;

  constructor(registry: Registry) {
    const registers = [registry];
    this.open = new Gauge({ name: 'tablegraph_live_subscriptions', help: 'Live subscriptions open on this replica', registers });
    this.polls = new Counter({
      name: 'tablegraph_live_polls_total',
      help: 'Reads of a live view (one for every subscriber of the same credentials, document and variables) by whether the result changed',
      labelNames: ['outcome'],
      registers,
    });
    this.events = new Counter({ name: 'tablegraph_live_events_total', help: 'Events sent to live subscribers of this replica', registers });
    this.callsPerPoll = new Histogram({ name: 'tablegraph_live_poll_upstream_calls', help: 'Upstream calls made by one read of a live view', buckets: CALL_BUCKETS, registers });
  }

  opened(): void {
    this.open.inc();
  }

  closed(): void {
    this.open.dec();
  }

  polled(changed: boolean, upstreamCalls: number): void {
    this.polls.inc({ outcome: changed ? 'changed' : 'unchanged' });
    this.callsPerPoll.observe(upstreamCalls);
  }

  sent(): void {
    this.events.inc();
  }
}
