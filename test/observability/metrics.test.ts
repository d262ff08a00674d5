import { UpstreamError } from '../../src/errors/UpstreamError';
import { GatewayMetrics } from '../../src/observability/metrics';
import { SAMPLE } from '../../src/sandbox';
import { readDoc } from '../support/readme';
import { LA_TERRAZZA, startStack, type Stack } from '../support/stack';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

/** The value of one sample line of the exposition text, e.g. `name{a="b"} 3`; undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function scrape(stack: Stack): Promise<{ contentType: string | null; text: string }> {
  const res = await fetch(`${stack.url}/metrics`);
  expect(res.status).toBe(200);
  return { contentType: res.headers.get('content-type'), text: await res.text() };
}

describe('GET /metrics', () => {
  let stack: Stack;
  let text: string;
  let contentType: string | null;
  beforeAll(async () => {
    stack = await startStack();
    const date = SAMPLE.laTerrazza.busyDate(stack.sandbox.state);
    const day = await stack.gql(`query Day($date: Date!) { reservations(date: $date, perPage: 50) { nodes { id check { id } } } }`, { date });
    expect(day.body.errors).toBeUndefined();
    await stack.gql(`query Missing { check(id: "${SAMPLE.unknownId}") { id } }`);
    await stack.gql(`{ employees(perPage: 1) { nodes { id } } }`, undefined, {});
    ({ text, contentType } = await scrape(stack));
  });
  afterAll(() => stack.close());

  it('answers in the Prometheus text format', () => {
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(text).toMatch(/^# HELP /m);
  });

  it('counts GraphQL requests by operation and outcome, and times them', () => {
    expect(sample(text, 'tablegraph_graphql_requests_total{operation="Day",outcome="success"}')).toBe(1);
    expect(sample(text, 'tablegraph_graphql_requests_total{operation="Missing",outcome="error"}')).toBe(1);
    expect(sample(text, 'tablegraph_graphql_requests_total{operation="anonymous",outcome="error"}')).toBe(1);
    expect(sample(text, 'tablegraph_graphql_request_duration_seconds_count{operation="Day"}')).toBe(1);
    expect(sample(text, 'tablegraph_graphql_request_duration_seconds_bucket{le="+Inf",operation="Day"}')).toBe(1);
  });

  it('counts upstream calls by service, method, route template, status and outcome, and times them', () => {
    const checks = SAMPLE.laTerrazza.busyDateDistinctCheckCount;
    expect(sample(text, 'tablegraph_upstream_calls_total{service="pos",method="GET",route="/checks/:id",status="200",outcome="success"}')).toBe(checks);
    expect(sample(text, 'tablegraph_upstream_calls_total{service="pos",method="GET",route="/checks/:id",status="404",outcome="status"}')).toBe(1);
    expect(sample(text, 'tablegraph_upstream_calls_total{service="reservation",method="GET",route="/v1/reservations",status="200",outcome="success"}')).toBe(1);
    expect(sample(text, 'tablegraph_upstream_call_duration_seconds_count{service="pos",method="GET",route="/checks/:id"}')).toBe(checks + 1);
  });

  it('never puts a raw id in a label', () => {
    expect(text).not.toMatch(UUID);
  });

  it('observes DataLoader batch sizes', () => {
    expect(sample(text, 'tablegraph_dataloader_batch_size_count{loader="checkById"}')).toBe(2);
    expect(sample(text, 'tablegraph_dataloader_batch_size_sum{loader="checkById"}')).toBe(SAMPLE.laTerrazza.busyDateDistinctCheckCount + 1);
  });

  it('shows each upstream circuit, closed until the breaker says otherwise', async () => {
    expect(sample(text, 'tablegraph_upstream_circuit_state{service="reservation"}')).toBe(0);
    expect(sample(text, 'tablegraph_upstream_circuit_state{service="pos"}')).toBe(0);
    stack.gateway.metrics.setCircuitState('pos', 'open');
    expect(sample((await scrape(stack)).text, 'tablegraph_upstream_circuit_state{service="pos"}')).toBe(2);
    stack.gateway.metrics.setCircuitState('pos', 'half-open');
    expect(sample((await scrape(stack)).text, 'tablegraph_upstream_circuit_state{service="pos"}')).toBe(1);
    stack.gateway.metrics.setCircuitState('pos', 'closed');
  });

  it("includes Node's process metrics", () => {
    for (const name of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes']) {
      expect(text).toContain(`\n${name} `);
    }
  });

  it('keeps one registry per gateway', async () => {
    const other = await startStack();
    try {
      await other.gql(`query Day { employees(perPage: 1) { nodes { id } } }`, undefined, LA_TERRAZZA);
      const otherText = (await scrape(other)).text;
      expect(sample(otherText, 'tablegraph_graphql_requests_total{operation="Day",outcome="success"}')).toBe(1);
      expect(sample((await scrape(stack)).text, 'tablegraph_graphql_requests_total{operation="Day",outcome="success"}')).toBe(1);
    } finally {
      await other.close();
    }
  });

  it('documents every metric of its own in docs/operations.md', () => {
    const operations = readDoc('docs/operations.md');
    const names = [...new Set([...text.matchAll(/^# TYPE (tablegraph_\w+) /gm)].map((m) => m[1]))];
    expect(names.length).toBeGreaterThanOrEqual(6);
    for (const name of names) expect({ name, documented: operations.includes(`\`${name}\``) }).toEqual({ name, documented: true });
  });
});

describe('GatewayMetrics', () => {
  it('caps the distinct operation names kept as labels, as clients choose them', async () => {
    const metrics = new GatewayMetrics({ defaultMetrics: false, maxOperationLabels: 2 });
    for (const name of ['A', 'B', 'C', 'D', 'A', null]) metrics.observeOperation(name, 'success', 0.01);
    const { text } = await metrics.render();
    expect(sample(text, 'tablegraph_graphql_requests_total{operation="A",outcome="success"}')).toBe(2);
    expect(sample(text, 'tablegraph_graphql_requests_total{operation="B",outcome="success"}')).toBe(1);
    expect(sample(text, 'tablegraph_graphql_requests_total{operation="__other__",outcome="success"}')).toBe(2);
    expect(sample(text, 'tablegraph_graphql_requests_total{operation="anonymous",outcome="success"}')).toBe(1);
    expect(text).not.toContain('process_cpu');
  });

  it('labels a call without an answer with status none and its failure', async () => {
    const metrics = new GatewayMetrics({ defaultMetrics: false });
    metrics.observeUpstreamCall({ service: 'reservation', method: 'POST', route: '/v1/reservations', durationMs: 3000, source: 'upstream', error: new UpstreamError('reservation', 'timeout') });
    const { text } = await metrics.render();
    expect(sample(text, 'tablegraph_upstream_calls_total{service="reservation",method="POST",route="/v1/reservations",status="none",outcome="timeout"}')).toBe(1);
    expect(sample(text, 'tablegraph_upstream_call_duration_seconds_sum{service="reservation",method="POST",route="/v1/reservations"}')).toBe(3);
  });
});
