import type { ApolloServer } from '@apollo/server';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { loadConfig } from '../../src/config';
import type { GatewayContext } from '../../src/context';
import { graphqlRoute } from '../../src/http/graphqlRoute';
import type { GraphqlStep } from '../../src/pipeline/types';
import { createLogger } from '../../src/logger';
import { GatewayMetrics } from '../../src/observability/metrics';
import { LA_TERRAZZA, logLine, startStack, type Stack } from '../support/stack';

const count = async (metrics: GatewayMetrics, operation: string, outcome: string): Promise<number> => {
  const samples = (await metrics.registry.getSingleMetric('tablegraph_graphql_requests_total')?.get())?.values ?? [];
  return samples.find((s) => s.labels.operation === operation && s.labels.outcome === outcome)?.value ?? 0;
};

describe('graphqlRoute', () => {
  describe('when a step throws', () => {
    let server: Server;
    let url: string;
    const lines: Array<Record<string, unknown>> = [];
    const metrics = new GatewayMetrics({ defaultMetrics: false });
    beforeAll(async () => {
      const logger = createLogger({ level: 'info', destination: new Writable({ write: (c: Buffer, _e, done) => (lines.push(JSON.parse(c.toString()) as Record<string, unknown>), done()) }) });
      const throwing: GraphqlStep = () => Promise.reject(new Error('a bug in a step'));
      const route = graphqlRoute({
        // Never reached: the step throws before execution.
        apollo: undefined as unknown as ApolloServer<GatewayContext>,
        limits: loadConfig({ NODE_ENV: 'test', RESERVATION_BASE_URL: 'http://127.0.0.1:1', POS_BASE_URL: 'http://127.0.0.1:1' }).limits,
        logger,
        metrics,
        context: () => Promise.reject(new Error('not reached')),
        steps: [throwing],
      });
      server = createServer((req, res) => void route(req, res, new URL(req.url ?? '/', 'http://gateway.invalid')));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('answers 500 and still writes its one log line and its count', async () => {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-request-id': 'route-throw-1' }, body: '{"query":"{ employees { nodes { id } } }"}' });
      expect(res.status).toBe(500);
      expect(((await res.json()) as { errors: Array<{ extensions: { code: string } }> }).errors[0]?.extensions.code).toBe('INTERNAL_SERVER_ERROR');
      const requestLines = lines.filter((l) => l.msg === 'graphql request' && l.requestId === 'route-throw-1');
      expect(requestLines).toHaveLength(1);
      expect(requestLines[0]).toMatchObject({ httpStatus: 500, outcome: 'error', errorCodes: ['INTERNAL_SERVER_ERROR'], operationName: null });
      expect(lines.some((l) => l.msg === 'request handling failed' && l.requestId === 'route-throw-1')).toBe(true);
      expect(await count(metrics, 'anonymous', 'error')).toBe(1);
    });
  });

  describe('a batch', () => {
    let stack: Stack;
    beforeAll(async () => {
      stack = await startStack({ env: { MAX_BATCH_SIZE: '3' } });
    });
    afterAll(() => stack.close());

    it('gets one log line listing its operations, and counts each operation', async () => {
      const res = await fetch(`${stack.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...LA_TERRAZZA, 'x-request-id': 'route-batch-1' },
        body: JSON.stringify([{ query: 'query BatchA { employees(perPage: 1) { nodes { id } } }' }, { query: 'query BatchB { nope }' }]),
      });
      expect(stack.logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'graphql request' && l.requestId === 'route-batch-1')).toHaveLength(1);
      const line = logLine(stack, 'route-batch-1');
      expect(line).toMatchObject({ httpStatus: res.status, operationName: null, outcome: 'partial', errorCodes: ['GRAPHQL_VALIDATION_FAILED'] });
      expect(line.operations).toEqual(
        expect.arrayContaining([
          { operationName: 'BatchA', outcome: 'success', errorCodes: [] },
          { operationName: null, outcome: 'error', errorCodes: ['GRAPHQL_VALIDATION_FAILED'] },
        ]),
      );
      expect(await count(stack.gateway.metrics, 'BatchA', 'success')).toBe(1);
      expect(await count(stack.gateway.metrics, 'anonymous', 'error')).toBeGreaterThanOrEqual(1);
    });
  });
});
