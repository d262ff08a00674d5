import { UpstreamError } from '../../src/errors/UpstreamError';
import { UpstreamTransport, WireMark, transportError } from '../../src/upstreams/transport';
import { sendJson, startScriptedServer, type ScriptedServer } from '../support/upstreamServer';

let server: ScriptedServer | undefined;
let transport: UpstreamTransport | undefined;

afterEach(async () => {
  await transport?.close();
  await server?.close();
  transport = undefined;
  server = undefined;
});

describe('UpstreamTransport', () => {
  it('sends JSON with the accept header and marks the wire written', async () => {
    server = await startScriptedServer((_req, res) => sendJson(res, 200, { ok: true }));
    transport = new UpstreamTransport({ baseUrl: server.url, connectTimeoutMs: 500, headersTimeoutMs: 1000, bodyTimeoutMs: 1000, connections: 1, maxResponseBytes: 1024 });
    const wire = new WireMark();
    const answer = await transport.send({ method: 'POST', route: '/x', path: '/x', headers: { 'x-gateway': '1' }, body: { a: 1 }, ignoreSuccessBody: false }, wire);
    expect(answer).toMatchObject({ status: 200, text: '{"ok":true}' });
    expect(server.requests[0]?.headers).toMatchObject({ 'x-gateway': '1', accept: 'application/json', 'content-type': 'application/json' });
    expect(server.requests[0]?.body).toBe('{"a":1}');
    expect(wire.written).toBe(true);
  });
});

describe('transportError', () => {
  it.each([
    ['UND_ERR_HEADERS_TIMEOUT', 'timeout'],
    ['ECONNREFUSED', 'unavailable'],
    ['UND_ERR_RES_EXCEEDED_MAX_SIZE', 'bad_response'],
    ['ESOMETHINGELSE', 'unavailable'],
  ])('reads undici code %s as %s', (code, failure) => {
    expect(transportError('pos', Object.assign(new Error('failed'), { code }), undefined)).toMatchObject({ service: 'pos', failure });
  });

  it('finds the code on a cause, as undici wraps socket errors', () => {
    const err = new TypeError('fetch failed', { cause: Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }) });
    expect(transportError('reservation', err, undefined)).toMatchObject({ failure: 'unavailable', connectionFailed: true });
  });

  it('finds a code two causes deep, and says a connection failed only for a connection error', () => {
    const nested = new Error('outer', { cause: new Error('middle', { cause: Object.assign(new Error('late'), { code: 'UND_ERR_HEADERS_TIMEOUT' }) }) });
    expect(transportError('pos', nested, undefined)).toMatchObject({ failure: 'timeout' });
    expect(transportError('pos', Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }), undefined)).toMatchObject({ detail: 'the connection failed' });
    expect(transportError('pos', new TypeError('boom'), undefined)).toMatchObject({ failure: 'unavailable', detail: 'the call failed' });
  });

  it("reports the request's own deadline, not the upstream, once the signal has fired", () => {
    expect(transportError('pos', new Error('aborted'), AbortSignal.abort())).toMatchObject({ failure: 'timeout', deadlineExceeded: true });
  });

  it('passes an UpstreamError through as it is', () => {
    const err = new UpstreamError('pos', 'status', { status: 418 });
    expect(transportError('pos', err, undefined)).toBe(err);
  });
});
