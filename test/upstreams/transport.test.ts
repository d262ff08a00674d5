import { UpstreamError } from '../../src/errors/UpstreamError';
import { UpstreamTransport, transportError, type SendLayer } from '../../src/upstreams/transport';
import { WireMark } from '../../src/upstreams/wireSignal';
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
  it('composes layers onto its send, the first outermost, as undici composes interceptors', async () => {
    server = await startScriptedServer((_req, res) => sendJson(res, 200, { ok: true }));
    transport = new UpstreamTransport({ baseUrl: server.url, connectTimeoutMs: 500, headersTimeoutMs: 1000, bodyTimeoutMs: 1000, connections: 1, maxResponseBytes: 1024 });
    const order: string[] = [];
    const layer =
      (name: string): SendLayer =>
      (next) =>
      async (req, wire) => {
        order.push(`${name} in`);
        const answer = await next({ ...req, headers: { ...req.headers, [`x-${name}`]: '1' } }, wire);
        order.push(`${name} out`);
        return answer;
      };
    const wire = new WireMark();
    const answer = await transport.compose(layer('outer'), layer('inner'))({ method: 'GET', route: '/x', path: '/x', headers: {}, ignoreSuccessBody: false }, wire);
    expect(answer).toMatchObject({ status: 200, text: '{"ok":true}' });
    expect(order).toEqual(['outer in', 'inner in', 'inner out', 'outer out']);
    expect(server.requests[0]?.headers).toMatchObject({ 'x-outer': '1', 'x-inner': '1', accept: 'application/json' });
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

  it("reports the request's own deadline, not the upstream, once the signal has fired", () => {
    expect(transportError('pos', new Error('aborted'), AbortSignal.abort())).toMatchObject({ failure: 'timeout', deadlineExceeded: true });
  });

  it('passes an UpstreamError through as it is', () => {
    const err = new UpstreamError('pos', 'status', { status: 418 });
    expect(transportError('pos', err, undefined)).toBe(err);
  });
});
