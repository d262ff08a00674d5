import { Writable } from 'node:stream';
import { createLogger } from '../../src/logger';
import { UpstreamDeviations } from '../../src/observability/deviations';
import { GatewayMetrics } from '../../src/observability/metrics';

describe('UpstreamDeviations', () => {
  it('counts every deviation and logs each kind once, at warn, without a value', async () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        done();
      },
    });
    const metrics = new GatewayMetrics({ defaultMetrics: false });
    const deviations = new UpstreamDeviations({ logger: createLogger({ level: 'info', destination }), metrics });
    const alias = { service: 'pos' as const, route: '/checks/:id', field: 'alias', received: 'number' };
    deviations.report(alias);
    deviations.report(alias);
    deviations.report({ ...alias, received: 'null' });
    const { text } = await metrics.render();
    expect(text).toContain('tablegraph_upstream_deviations_total{service="pos",route="/checks/:id",field="alias",received="number"} 2');
    expect(text).toContain('tablegraph_upstream_deviations_total{service="pos",route="/checks/:id",field="alias",received="null"} 1');
    const logged = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(logged).toHaveLength(2);
    expect(logged[0]).toMatchObject({ level: 40, msg: 'upstream answer differs from the documents', upstream: 'pos', route: '/checks/:id', field: 'alias', received: 'number' });
  });
});
