import { Writable } from 'node:stream';
import { UpstreamError } from '../../src/errors/UpstreamError';
import { createLogger } from '../../src/logger';
import { GatewayMetrics } from '../../src/observability/metrics';
import { observabilityHooks } from '../../src/observability/upstreamHooks';

function quietLogger() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  return { lines, logger: createLogger({ level: 'info', destination }) };
}

describe('observabilityHooks', () => {
  it('counts every call and logs only the failed ones', async () => {
    const metrics = new GatewayMetrics({ defaultMetrics: false });
    const { lines, logger } = quietLogger();
    const hooks = observabilityHooks(metrics, logger);
    hooks.onCall({ service: 'pos', method: 'GET', route: '/employees', status: 200, durationMs: 5, source: 'upstream' });
    hooks.onCall({ service: 'pos', method: 'GET', route: '/employees', status: 503, durationMs: 7, source: 'upstream', error: new UpstreamError('pos', 'status', { status: 503 }) });
    expect((await metrics.render()).text).toContain('tablegraph_upstream_call_duration_seconds_count{service="pos",method="GET",route="/employees"} 2');
    expect(lines.map((l) => JSON.parse(l) as Record<string, unknown>)).toEqual([
      expect.objectContaining({ level: 40, msg: 'upstream call failed', status: 503, failure: 'status' }),
    ]);
  });

  it('sets the circuit gauge on every breaker state change', async () => {
    const metrics = new GatewayMetrics({ defaultMetrics: false });
    observabilityHooks(metrics, quietLogger().logger).onCircuitStateChange('reservation', 'open');
    expect((await metrics.render()).text).toContain('tablegraph_upstream_circuit_state{service="reservation"} 2');
  });
});
