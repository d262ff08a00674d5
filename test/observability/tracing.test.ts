import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { requestTraceHeaders, startTracing, type Tracing } from '../../src/observability/tracing';
import { SAMPLE, startSandbox, type Sandbox } from '../../src/sandbox';
import { spawnGateway, type GatewayProcess } from '../support/gatewayProcess';
import { LA_TERRAZZA, logLine, startStack, type Stack } from '../support/stack';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/;

function traceparentOf(header: string | string[] | undefined): { traceId: string; parentId: string } {
  const match = TRACEPARENT.exec(String(header));
  if (!match) throw new Error(`not a traceparent: ${String(header)}`);
  return { traceId: match[1], parentId: match[2] };
}

describe('tracing', () => {
  describe('when off (no OTEL_EXPORTER_OTLP_ENDPOINT)', () => {
    let stack: Stack;
    beforeAll(async () => {
      stack = await startStack();
    });
    afterAll(() => stack.close());
    beforeEach(() => stack.sandbox.resetRequests());

    const booking = `query Booking($id: ID!) { reservation(id: $id) { id check { id } } }`;
    const clientTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const clientSpan = '00f067aa0ba902b7';

    it('still sends upstream a new, well-formed, unsampled trace context, and writes no trace ids', async () => {
      await stack.gql(`{ check(id: "${SAMPLE.laTerrazza.openCheckId}") { id } }`);
      const [request] = stack.sandbox.requests;
      expect(request.headers.traceparent).toMatch(/^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-00$/);
      expect(request.headers.tracestate).toBeUndefined();
      expect(stack.logs.some((l) => l.includes('traceId'))).toBe(false);
    });

    it("forwards the client's traceparent and tracestate unchanged to every upstream call", async () => {
      const client = `00-${clientTrace}-${clientSpan}-01`;
      await stack.gql(booking, { id: SAMPLE.laTerrazza.reservationWithCheckId }, {
        ...LA_TERRAZZA,
        traceparent: client,
        tracestate: 'congo=t61rcWkgMzE,rojo=00f067aa0ba902b7',
      });
      expect(stack.sandbox.requests.map((r) => r.service).sort()).toEqual(['pos', 'reservation']);
      // No span of the gateway's to point at: upstream spans are children of the client's own span.
      for (const request of stack.sandbox.requests) {
        expect(request.headers.traceparent).toBe(client);
        expect(request.headers.tracestate).toBe('congo=t61rcWkgMzE,rojo=00f067aa0ba902b7');
      }
    });

    it('starts a new trace, without the tracestate, when the client traceparent is invalid', async () => {
      await stack.gql(`{ check(id: "${SAMPLE.laTerrazza.openCheckId}") { id } }`, undefined, {
        ...LA_TERRAZZA,
        traceparent: `00-${clientTrace.toUpperCase()}-${clientSpan}-01`,
        tracestate: 'congo=t61rcWkgMzE',
      });
      const [request] = stack.sandbox.requests;
      const { traceId, parentId } = traceparentOf(request.headers.traceparent);
      expect(traceId).not.toBe(clientTrace);
      expect(parentId).not.toBe(clientSpan);
      expect(request.headers.traceparent).toMatch(/-00$/);
      expect(request.headers.tracestate).toBeUndefined();
    });

    it("never gives one request's upstream calls another concurrent request's trace", async () => {
      // Twenty requests at once, each with a trace context of its own (trace-id and parent-id both differ); each needs
      // two upstream reads, one after the other, which it makes itself or joins while another request makes them
      // (src/upstreams/sharedReads.ts): a call carries the trace of the one request that made it.
      const requests = Array.from({ length: 20 }, (_, i) => {
        const n = i.toString(16).padStart(2, '0');
        return { requestId: `trace-${i}`, traceparent: `00-${n}${clientTrace.slice(2)}-${n}${clientSpan.slice(2)}-0${i % 2}`, tracestate: `rojo=${n}` };
      });
      const results = await Promise.all(
        requests.map(({ requestId, traceparent, tracestate }) =>
          stack.gql(booking, { id: SAMPLE.laTerrazza.reservationWithCheckId }, { ...LA_TERRAZZA, 'x-request-id': requestId, traceparent, tracestate }),
        ),
      );
      for (const res of results) expect(res.body.errors).toBeUndefined();
      const made = requests.flatMap(({ requestId }) => (logLine(stack, requestId).upstreamCalls as Array<{ source: string }>).filter((c) => c.source === 'upstream'));
      expect(stack.sandbox.requests).toHaveLength(made.length);
      for (const upstream of stack.sandbox.requests) {
        const requestId = String(upstream.headers['x-request-id']);
        const expected = requests.find((r) => r.requestId === requestId)!;
        expect({ requestId, traceparent: upstream.headers.traceparent, tracestate: upstream.headers.tracestate }).toEqual(expected);
      }
    });
  });

  describe('requestTraceHeaders, when off: W3C trace context through the propagator', () => {
    const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
    const PARENT_ID = '00f067aa0ba902b7';
    const VALID = `00-${TRACE_ID}-${PARENT_ID}-01`;
    const headersFor = (client: Record<string, string | undefined>) => requestTraceHeaders((name) => client[name]);

    it('forwards a well-formed client traceparent with its trace-id, parent-id and flags', () => {
      for (const flags of ['00', '01', '03']) {
        const client = `00-${TRACE_ID}-${PARENT_ID}-${flags}`;
        expect(headersFor({ traceparent: client })).toEqual({ traceparent: client });
      }
      // A later version's header is read as version 00 (W3C, "Versioning of traceparent").
      expect(headersFor({ traceparent: `01-${TRACE_ID}-${PARENT_ID}-01-later` })).toEqual({ traceparent: VALID });
    });

    it.each([
      ['empty', ''],
      ['the forbidden version ff', `ff-${TRACE_ID}-${PARENT_ID}-01`],
      ['version 00 with an extra field', `${VALID}-extra`],
      ['an all-zero trace-id', `00-${'0'.repeat(32)}-${PARENT_ID}-01`],
      ['an all-zero parent-id', `00-${TRACE_ID}-${'0'.repeat(16)}-01`],
      ['uppercase hex', `00-${TRACE_ID.toUpperCase()}-${PARENT_ID}-01`],
      ['a short trace-id', `00-${TRACE_ID.slice(1)}-${PARENT_ID}-01`],
      ['a long parent-id', `00-${TRACE_ID}-${PARENT_ID}a-01`],
      ['one-digit flags', `00-${TRACE_ID}-${PARENT_ID}-1`],
      ['non-hex characters', `00-${TRACE_ID.replace('4', 'g')}-${PARENT_ID}-01`],
      ['two headers joined by a comma', `${VALID}, 00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`],
      ['another separator', VALID.replaceAll('-', '_')],
    ])('starts a new unsampled trace, without the tracestate, for a traceparent that is %s', (_name, traceparent) => {
      const sent = headersFor({ traceparent, tracestate: 'congo=t61rcWkgMzE' });
      expect(Object.keys(sent)).toEqual(['traceparent']);
      expect(sent.traceparent).toMatch(/^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-00$/);
      expect(sent.traceparent).not.toContain(TRACE_ID);
    });

    it('starts a different trace for each request without one', () => {
      const traceIds = new Set(Array.from({ length: 100 }, () => headersFor({}).traceparent.slice(3, 35)));
      expect(traceIds.size).toBe(100);
    });

    it("forwards the client's tracestate with its traceparent, keeping its valid members in order", () => {
      expect(headersFor({ traceparent: VALID, tracestate: 'congo=t61rcWkgMzE,rojo=00f067aa0ba902b7' })).toEqual({ traceparent: VALID, tracestate: 'congo=t61rcWkgMzE,rojo=00f067aa0ba902b7' });
      expect(headersFor({ traceparent: VALID, tracestate: 'rojo=1 , Bad=2, congo=caf\u00e9,congo=2' }).tracestate).toBe('rojo=1,congo=2');
      expect(headersFor({ traceparent: VALID, tracestate: '' })).toEqual({ traceparent: VALID });
      expect(headersFor({ traceparent: VALID, tracestate: 'no members' })).toEqual({ traceparent: VALID });
    });

    it('cuts a long tracestate to at most 512 characters and 32 members', () => {
      const members = Array.from({ length: 20 }, (_, i) => `k${String(i).padStart(2, '0')}=${'v'.repeat(36)}`); // 40 chars each
      const cut = headersFor({ traceparent: VALID, tracestate: members.join(',') }).tracestate;
      // 12 members of 40 plus 11 commas = 491; a 13th would make 532.
      expect(cut).toBe(members.slice(0, 12).join(','));
      const many = Array.from({ length: 200 }, (_, i) => `k${i}=1`);
      expect(headersFor({ traceparent: VALID, tracestate: many.join(',') }).tracestate.split(',')).toEqual(many.slice(0, 32));
    });
  });

  describe('when on (in-memory exporter)', () => {
    const exporter = new InMemorySpanExporter();
    let tracing: Tracing;
    let stack: Stack;
    beforeAll(async () => {
      tracing = startTracing({ serviceName: 'tablegraph-test', spanProcessors: [new SimpleSpanProcessor(exporter)] })!;
      stack = await startStack();
    });
    afterAll(async () => {
      await stack.close();
      await tracing.shutdown();
    });
    beforeEach(() => {
      exporter.reset();
      stack.sandbox.resetRequests();
    });
    const spans = (): ReadableSpan[] => exporter.getFinishedSpans();
    const operationSpans = () => spans().filter((s) => s.kind === SpanKind.SERVER);
    const upstreamSpans = () => spans().filter((s) => s.kind === SpanKind.CLIENT);

    it('marks a read kept from an earlier answer with an event on the operation span, and makes no client span for it', async () => {
      const query = `query OpenCheck { check(id: "${SAMPLE.laTerrazza.openCheckId}") { id } }`;
      await stack.gql(query, undefined, { ...LA_TERRAZZA, 'cache-control': 'max-age=30' });
      exporter.reset();
      const kept = await stack.gql(query, undefined, { ...LA_TERRAZZA, 'cache-control': 'max-age=30' });
      expect(kept.headers.get('age')).not.toBeNull();
      expect(upstreamSpans()).toHaveLength(0);
      const events = operationSpans()[0].events.filter((e) => e.name === 'upstream read');
      expect(events.map((e) => e.attributes)).toEqual([{ 'tablegraph.upstream.service': 'pos', 'url.template': '/checks/:id', 'tablegraph.read.source': 'cache' }]);
    });

    it('makes one span per GraphQL operation, named after it, and a child span per upstream call', async () => {
      const res = await stack.gql(`query Booking($id: ID!) { reservation(id: $id) { id check { id } } }`, { id: SAMPLE.laTerrazza.reservationWithCheckId });
      expect(res.body.errors).toBeUndefined();

      expect(operationSpans()).toHaveLength(1);
      const operation = operationSpans()[0];
      expect(operation.name).toBe('query Booking');
      expect(operation.attributes).toMatchObject({ 'graphql.operation.name': 'Booking', 'graphql.operation.type': 'query', 'tablegraph.outcome': 'success' });
      expect(operation.resource.attributes['service.name']).toBe('tablegraph-test');

      const calls = upstreamSpans();
      expect(calls.map((s) => s.name).sort()).toEqual(['GET /checks/:id', 'GET /v1/reservations/:id']);
      for (const call of calls) {
        expect(call.spanContext().traceId).toBe(operation.spanContext().traceId);
        expect(call.parentSpanContext?.spanId).toBe(operation.spanContext().spanId);
        expect(call.attributes['http.response.status_code']).toBe(200);
        expect(call.status.code).not.toBe(SpanStatusCode.ERROR);
      }
      expect(calls.find((s) => s.name === 'GET /checks/:id')!.attributes).toMatchObject({
        'tablegraph.upstream.service': 'pos',
        'url.template': '/checks/:id',
        'http.request.method': 'GET',
      });
    });

    it("sends each upstream the W3C traceparent of its own call's span, in the operation's trace", async () => {
      await stack.gql(`query Booking($id: ID!) { reservation(id: $id) { id check { id } } }`, { id: SAMPLE.laTerrazza.reservationWithCheckId });
      const operation = operationSpans()[0];
      expect(stack.sandbox.requests).toHaveLength(2);
      for (const request of stack.sandbox.requests) {
        const { traceId, parentId } = traceparentOf(request.headers.traceparent);
        expect(traceId).toBe(operation.spanContext().traceId);
        const span = upstreamSpans().find((s) => s.spanContext().spanId === parentId);
        expect(span?.attributes['tablegraph.upstream.service']).toBe(request.service);
      }
    });

    it("continues the client's trace when it sends a traceparent", async () => {
      const clientTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
      const clientSpan = '00f067aa0ba902b7';
      await stack.gql(`query Staff { employees(perPage: 1) { nodes { id } } }`, undefined, { ...LA_TERRAZZA, traceparent: `00-${clientTrace}-${clientSpan}-01` });
      const operation = operationSpans()[0];
      expect(operation.spanContext().traceId).toBe(clientTrace);
      expect(operation.parentSpanContext?.spanId).toBe(clientSpan);
      const upstream = traceparentOf(stack.sandbox.requests[0].headers.traceparent);
      expect(upstream.traceId).toBe(clientTrace);
      expect(upstream.parentId).not.toBe(clientSpan);
    });

    it('leaves the trace context to the spans: a request adds none of its own to the scope headers', () => {
      const client: Record<string, string> = { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', tracestate: 'congo=t61rcWkgMzE' };
      expect(requestTraceHeaders((name) => client[name])).toEqual({});
    });

    it('marks a failed upstream call as an error with its status', async () => {
      await stack.gql(`query Missing { check(id: "${SAMPLE.unknownId}") { id } }`);
      const call = upstreamSpans()[0];
      expect(call.status.code).toBe(SpanStatusCode.ERROR);
      expect(call.attributes).toMatchObject({ 'http.response.status_code': 404, 'error.type': '404' });
      expect(operationSpans()[0].attributes).toMatchObject({ 'tablegraph.outcome': 'error', 'tablegraph.error_codes': ['NOT_FOUND'] });
    });

    it("writes the trace id into the request's log lines", async () => {
      await stack.gql(`query Staff { employees(perPage: 1) { nodes { id } } }`, undefined, { ...LA_TERRAZZA, 'x-request-id': 'traced-1' });
      expect(logLine(stack, 'traced-1').traceId).toBe(operationSpans()[0].spanContext().traceId);
    });
  });

  describe('in the real process, with OTEL_EXPORTER_OTLP_ENDPOINT set', () => {
    let sandbox: Sandbox;
    let collector: Server;
    let gateway: GatewayProcess | undefined;
    const exports: Array<{ path: string; contentType: string; body: string }> = [];
    beforeAll(async () => {
      sandbox = await startSandbox();
      collector = createServer((req, res) => {
        let body = '';
        req.on('data', (d: Buffer) => (body += d.toString('utf8')));
        req.on('end', () => {
          exports.push({ path: req.url ?? '', contentType: req.headers['content-type'] ?? '', body });
          res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        });
      });
      await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    });
    afterAll(async () => {
      gateway?.kill();
      await new Promise<void>((resolve) => collector.close(() => resolve()));
      await sandbox.close();
    });

    it('exports the spans over OTLP/HTTP, flushing them on shutdown', async () => {
      gateway = spawnGateway('src/main.ts', {
        SINGLE_REPLICA: 'true',
        RESERVATION_BASE_URL: sandbox.reservationUrl,
        POS_BASE_URL: sandbox.posUrl,
        PORT: '0',
        HOST: '127.0.0.1',
        SHUTDOWN_DELAY_MS: '0',
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`,
        OTEL_SERVICE_NAME: 'tablegraph-process-test',
      });
      const listening = await gateway.waitForLog('gateway listening');
      expect(listening.tracing).toBe(true);
      await gateway.waitForLog('gateway ready');
      const res = await fetch(`http://127.0.0.1:${String(listening.port)}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...LA_TERRAZZA },
        body: JSON.stringify({ query: 'query Staff { employees(perPage: 1) { nodes { id } } }' }),
      });
      expect(res.status).toBe(200);
      gateway.child.kill('SIGTERM');
      expect(await gateway.exited).toBe(0);

      expect(exports.length).toBeGreaterThan(0);
      expect(exports[0]).toMatchObject({ path: '/v1/traces', contentType: 'application/json' });
      const payload = exports.map((e) => e.body).join('\n');
      expect(payload).toContain('"stringValue":"tablegraph-process-test"');
      expect(payload).toContain('"name":"query Staff"');
      expect(payload).toContain('"name":"GET /employees"');
      const { traceId } = traceparentOf(sandbox.requests[0].headers.traceparent);
      expect(payload).toContain(`"traceId":"${traceId}"`);
    }, 30_000);
  });
});
