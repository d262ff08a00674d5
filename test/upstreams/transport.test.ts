import { getEventListeners } from 'node:events';
import { createServer, type Server } from 'node:net';
import { Pool } from 'undici';
import { UpstreamError } from '../../src/errors/UpstreamError';
import { UpstreamTransport, WireMark, transportError, type TransportOptions, type TransportRequest } from '../../src/upstreams/transport';
import { closedPort, sendJson, startScriptedServer, type ScriptedServer } from '../support/upstreamServer';

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
    expect(answer).toMatchObject({ status: 200, text: '{"ok":true}', bytes: 11 });
    expect(server.requests[0]?.headers).toMatchObject({ 'x-gateway': '1', accept: 'application/json', 'content-type': 'application/json' });
    expect(server.requests[0]?.body).toBe('{"a":1}');
    expect(wire.written).toBe(true);
  });
});

const OPTIONS: Omit<TransportOptions, 'baseUrl'> = { connectTimeoutMs: 500, headersTimeoutMs: 1000, bodyTimeoutMs: 1000, connections: 1, maxResponseBytes: 1024 };
const GET: TransportRequest = { method: 'GET', route: '/x', path: '/x', headers: {}, ignoreSuccessBody: false };

/** Resolves after `ms`. */
const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe("UpstreamTransport's pool", () => {
  it("is undici's own Pool, loaded from its file (src/upstreams/transport.ts): a version that moves the file fails here", () => {
    expect(jest.requireActual('undici/lib/dispatcher/pool')).toBe(Pool);
  });
});

describe('UpstreamTransport and the request signal', () => {
  it('fails a call at once when its signal fires while it waits for a connection, and never writes it', async () => {
    server = await startScriptedServer((_req, res) => setTimeout(() => sendJson(res, 200, { ok: true }), 200));
    transport = new UpstreamTransport({ ...OPTIONS, baseUrl: server.url });
    const first = transport.send(GET, new WireMark());
    // One connection, held by the first call: the second waits in the pool's queue.
    const controller = new AbortController();
    const wire = new WireMark();
    const second = transport.send({ ...GET, path: '/queued', signal: controller.signal }, wire);
    const settled: string[] = [];
    void first.then(() => settled.push('first'));
    void second.catch(() => settled.push('second'));
    await delay(20);
    controller.abort(new Error('deadline'));
    await expect(second).rejects.toThrow('deadline');
    expect(wire.written).toBe(false);
    await expect(first).resolves.toMatchObject({ status: 200 });
    // At once: not when the connection it waited for came free.
    expect(settled).toEqual(['second', 'first']);
    // Once the pool has finished with both, the queued call was still never sent.
    await transport.close();
    transport = undefined;
    expect(server.requests.map((r) => r.url)).toEqual(['/x']);
  });

  it.each([
    ['a success', 200, false],
    ['an error answer', 404, false],
    ['a success whose body is ignored', 204, true],
  ])('leaves no listener on the signal after %s', async (_what, status, ignoreSuccessBody) => {
    server = await startScriptedServer((_req, res) => sendJson(res, status, { ok: true }));
    transport = new UpstreamTransport({ ...OPTIONS, baseUrl: server.url });
    const { signal } = new AbortController();
    await transport.send({ ...GET, signal, ignoreSuccessBody }, new WireMark());
    // An ignored body is answered before it is drained; the deadline listens until the drain ends.
    for (let i = 0; i < 40 && getEventListeners(signal, 'abort').length > 0; i++) await delay(5);
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });

  it('leaves no listener on the signal after a refused connection or an abort', async () => {
    transport = new UpstreamTransport({ ...OPTIONS, baseUrl: `http://127.0.0.1:${await closedPort()}` });
    const refused = new AbortController();
    await expect(transport.send({ ...GET, signal: refused.signal }, new WireMark())).rejects.toBeDefined();
    expect(getEventListeners(refused.signal, 'abort')).toHaveLength(0);
    const aborted = new AbortController();
    const call = transport.send({ ...GET, signal: aborted.signal }, new WireMark());
    aborted.abort();
    await expect(call).rejects.toBeDefined();
    expect(getEventListeners(aborted.signal, 'abort')).toHaveLength(0);
  });

  it('still cuts the drain of an ignored success body that trickles on past the deadline', async () => {
    let sentAtClose: number | undefined;
    server = await startScriptedServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '40' });
      // One byte every 50 ms: never silent long enough for the body timeout, done only after 2 s.
      let sent = 0;
      const timer = setInterval(() => {
        if (sent === 40) return;
        res.write('a');
        sent += 1;
      }, 50);
      req.socket.once('close', () => {
        clearInterval(timer);
        sentAtClose = sent;
      });
    });
    transport = new UpstreamTransport({ ...OPTIONS, baseUrl: server.url });
    const controller = new AbortController();
    await expect(transport.send({ ...GET, signal: controller.signal, ignoreSuccessBody: true }, new WireMark())).resolves.toMatchObject({ status: 200, text: '', bytes: 0 });
    controller.abort();
    for (let i = 0; i < 120 && sentAtClose === undefined; i++) await delay(25);
    // The connection was cut with the body unfinished, rather than drained to its end.
    expect(sentAtClose).toBeDefined();
    expect(sentAtClose).toBeLessThan(40);
  });
});

describe('UpstreamTransport reading the body', () => {
  let raw: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => (raw ? raw.close(resolve) : resolve(undefined)));
    raw = undefined;
  });

  it('reads UTF-8 split across chunks as one text, without a byte order mark, and counts its bytes', async () => {
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('"€é"')]);
    raw = createServer((socket) => {
      socket.once('data', () => {
        socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`);
        // The euro sign's three bytes split between two writes.
        socket.write(body.subarray(0, 5));
        setTimeout(() => socket.end(body.subarray(5)), 30);
      });
    });
    await new Promise<void>((resolve) => raw!.listen(0, '127.0.0.1', resolve));
    const { port } = raw.address() as { port: number };
    transport = new UpstreamTransport({ ...OPTIONS, baseUrl: `http://127.0.0.1:${port}` });
    // Two quotes, the euro sign's three bytes and é's two: the mark's three are not the text's.
    await expect(transport.send(GET, new WireMark())).resolves.toMatchObject({ status: 200, text: '"€é"', bytes: 7 });
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
