import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { loadConfig } from '../../src/config';
import { ServerLifecycle } from '../../src/http/lifecycle';
import { createLogger } from '../../src/logger';
import { SAMPLE, startSandbox, type Sandbox } from '../../src/sandbox';
import { createGateway, type Gateway } from '../../src/server';
import { eventually } from '../support/gatewayProcess';
import { LA_TERRAZZA } from '../support/stack';

interface Harness {
  gateway: Gateway;
  url: string;
  logs: string[];
}

/** A gateway listening on port 0 but not started: the caller drives its lifecycle. */
async function listeningGateway(sandbox: Sandbox, env: Record<string, string> = {}): Promise<Harness> {
  const config = loadConfig({ NODE_ENV: 'test', RESERVATION_BASE_URL: sandbox.reservationUrl, POS_BASE_URL: sandbox.posUrl, ...env });
  const logs: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const gateway = createGateway({ config, logger: createLogger({ level: 'info', destination }) });
  await new Promise<void>((resolve) => gateway.server.listen(0, '127.0.0.1', resolve));
  return { gateway, url: `http://127.0.0.1:${(gateway.server.address() as AddressInfo).port}`, logs };
}

function checkQuery(url: string): Promise<Response> {
  return fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...LA_TERRAZZA },
    body: JSON.stringify({ query: `{ check(id: "${SAMPLE.laTerrazza.openCheckId}") { id } }` }),
  });
}

describe('the gateway lifecycle', () => {
  let sandbox: Sandbox;
  let harness: Harness | undefined;
  afterEach(async () => {
    if (harness && harness.gateway.state !== 'stopped') await harness.gateway.stop();
    harness = undefined;
    await sandbox.close();
  });

  it('answers /healthz but not /readyz or /graphql while starting, and all three once started', async () => {
    sandbox = await startSandbox();
    harness = await listeningGateway(sandbox);
    const { gateway, url } = harness;
    expect(gateway.state).toBe('starting');
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const readyz = await fetch(`${url}/readyz`);
    expect({ status: readyz.status, body: await readyz.json() }).toEqual({ status: 503, body: { status: 'starting' } });
    const early = await checkQuery(url);
    expect(early.status).toBe(503);
    expect(early.headers.get('retry-after')).toBe('1');
    expect(await early.json()).toMatchObject({ errors: [{ extensions: { code: 'INTERNAL_SERVER_ERROR' } }] });
    expect(sandbox.requests).toHaveLength(0);
    // Answered while starting, it is still one request: one log line with its status, one count.
    const lines = harness.logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'graphql request');
    expect(lines).toEqual([expect.objectContaining({ httpStatus: 503, requestId: early.headers.get('x-request-id') })]);
    const counted = (await gateway.metrics.registry.getSingleMetric('tablegraph_graphql_requests_total')!.get()).values.reduce((sum, v) => sum + v.value, 0);
    expect(counted).toBe(1);

    await gateway.start();
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    expect((await checkQuery(url)).status).toBe(200);
  });

  it('keeps serving while draining, with readiness 503 and connections not reused', async () => {
    sandbox = await startSandbox();
    harness = await listeningGateway(sandbox);
    await harness.gateway.start();
    harness.gateway.drain();
    const readyz = await fetch(`${harness.url}/readyz`);
    expect({ status: readyz.status, body: await readyz.json() }).toEqual({ status: 503, body: { status: 'draining' } });
    const res = await checkQuery(harness.url);
    expect(res.status).toBe(200);
    expect(res.headers.get('connection')).toBe('close');
  });

  it('stop() refuses new connections, lets the request in flight finish, then resolves', async () => {
    sandbox = await startSandbox({ delayMs: 1000 });
    harness = await listeningGateway(sandbox);
    const { gateway, url } = harness;
    await gateway.start();
    const inFlight = checkQuery(url);
    expect(await eventually(() => sandbox.requests.length === 1)).toBe(true);

    let stopped = false;
    const stopping = gateway.stop().then(() => (stopped = true));
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    expect(stopped).toBe(false);
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: { check: { id: SAMPLE.laTerrazza.openCheckId } } });
    await stopping;
    expect(gateway.state).toBe('stopped');
    expect(harness.logs.some((l) => l.includes('drain timeout'))).toBe(false);
  });

  it('stop() cuts a request still in flight when DRAIN_TIMEOUT_MS passes, and says so in the log', async () => {
    sandbox = await startSandbox({ delayMs: 1500 });
    harness = await listeningGateway(sandbox, { DRAIN_TIMEOUT_MS: '100' });
    const { gateway, url } = harness;
    await gateway.start();
    const outcome = checkQuery(url).then(
      () => 'answered',
      () => 'cut',
    );
    expect(await eventually(() => sandbox.requests.length === 1)).toBe(true);
    await gateway.stop();
    expect(await outcome).toBe('cut');
    const line = harness.logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => String(l.msg).startsWith('drain timeout'));
    expect(line).toMatchObject({ level: 40, requests: 1, drainTimeoutMs: 100 });
  });
});

describe('ServerLifecycle, the requests in flight', () => {
  /** A response as the lifecycle sees it: its close event, whether its headers went, the headers set on it. */
  function response(headersSent = false) {
    const headers: Record<string, string> = {};
    const res = Object.assign(new EventEmitter(), {
      headersSent,
      destroyed: false,
      closed: false,
      setHeader: (name: string, value: string) => (headers[name] = value),
    });
    return { res: res as unknown as ServerResponse, headers, close: () => res.emit('close') };
  }

  const settledSoon = async (promise: Promise<void>): Promise<boolean> => {
    let done = false;
    void promise.then(() => (done = true));
    await new Promise((resolve) => setImmediate(resolve));
    return done;
  };

  it('is idle once every response it counts has closed, however they come and go', async () => {
    const lifecycle = new ServerLifecycle();
    const [a, b, c] = [response(), response(), response()];
    lifecycle.track(a.res);
    lifecycle.track(b.res);
    a.close();
    lifecycle.track(c.res);
    expect(await settledSoon(lifecycle.idle())).toBe(false);
    b.close();
    expect(await settledSoon(lifecycle.idle())).toBe(false);
    c.close();
    expect(await settledSoon(lifecycle.idle())).toBe(true);
  });

  it("does not let a held stream's close settle the response that took its slot", async () => {
    const lifecycle = new ServerLifecycle();
    const [stream, next] = [response(), response()];
    lifecycle.track(stream.res);
    lifecycle.hold(stream.res, () => undefined);
    lifecycle.track(next.res);
    stream.close();
    expect(await settledSoon(lifecycle.idle())).toBe(false);
    next.close();
    expect(await settledSoon(lifecycle.idle())).toBe(true);
  });

  it('asks the responses not yet begun to close their connection once draining, and those tracked after too', () => {
    const lifecycle = new ServerLifecycle();
    const [begun, waiting, closed] = [response(true), response(), response()];
    for (const { res } of [begun, waiting, closed]) lifecycle.track(res);
    closed.close();
    lifecycle.markDraining();
    const later = response();
    lifecycle.track(later.res);
    expect([begun.headers, waiting.headers, closed.headers, later.headers]).toEqual([{}, { connection: 'close' }, {}, { connection: 'close' }]);
  });
});
