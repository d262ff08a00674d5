import { z } from 'zod';
import { UpstreamError } from '../../src/errors/UpstreamError';
import { Check } from '../../src/upstreams/pos/dto';
import { BODY_IGNORED, UpstreamHttp, uuidSegment, type UpstreamCallRecord, type UpstreamHttpOptions, type UpstreamRequest } from '../../src/upstreams/http';
import { InputError } from '../../src/errors/InputError';
import { checkRecord } from '../support/fixtures';
import { closedPort, sendJson, startScriptedServer, type ScriptedHandler, type ScriptedServer } from '../support/upstreamServer';
import { failureOf } from '../support/failures';

const MiB = 1024 * 1024;
const Ok = z.object({ ok: z.boolean() });

const servers: ScriptedServer[] = [];
const pools: UpstreamHttp[] = [];

async function serve(handler: ScriptedHandler): Promise<ScriptedServer> {
  const server = await startScriptedServer(handler);
  servers.push(server);
  return server;
}

function transport(baseUrl: string, overrides: Partial<UpstreamHttpOptions> = {}): UpstreamHttp {
  const http = new UpstreamHttp({
    service: 'pos',
    baseUrl,
    connectTimeoutMs: 500,
    headersTimeoutMs: 1000,
    bodyTimeoutMs: 1000,
    connections: 8,
    maxResponseBytes: MiB,
    ...overrides,
  });
  pools.push(http);
  return http;
}

function get<T>(path: string, response: UpstreamRequest<T>['response'], extra: Partial<UpstreamRequest<T>> = {}): UpstreamRequest<T> {
  return { method: 'GET', route: path, path, headers: {}, response, ...extra };
}

function ignored(path: string): UpstreamRequest<undefined> {
  return { method: 'GET', route: path, path, headers: {}, ...BODY_IGNORED };
}


afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe('UpstreamHttp', () => {
  describe('success', () => {
    it('parses a 2xx JSON body with the zod schema and drops unknown fields', async () => {
      const check = checkRecord();
      const server = await serve((_req, res) => sendJson(res, 200, { ...check, surprise_field: 1 }));
      const value = await transport(server.url).call(get(`/checks/${check.id}`, Check));
      // The schema's own output: `*_at` integers read as DateTimes.
      expect(value).toEqual(Check.parse(check));
      expect(value.created_at).toBe('2025-11-21T16:00:00+00:00');
      expect(value).not.toHaveProperty('surprise_field');
    });

    it('treats any 2xx status as a success', async () => {
      const server = await serve((_req, res) => sendJson(res, 202, { ok: true }));
      await expect(transport(server.url).call(get('/x', Ok))).resolves.toEqual({ ok: true });
    });

    it.each([200, 201, 204])('resolves what onEmpty gives on an empty %i body', async (status) => {
      const server = await serve((_req, res) => sendJson(res, status));
      await expect(transport(server.url).call(get('/x', Ok, { onEmpty: () => undefined }))).resolves.toBeUndefined();
    });

    it.each([
      ['text', 'text/plain', 'OK'],
      ['HTML', 'text/html', '<html><body>Saved</body></html>'],
      ['JSON of any shape', 'application/json', '[1,2,3]'],
      ['larger than maxResponseBytes', 'text/plain', 'a'.repeat(MiB + 1)],
    ])('resolves undefined without reading a 2xx body that is %s when the body is ignored', async (_what, type, text) => {
      const server = await serve((_req, res) => res.writeHead(200, { 'content-type': type }).end(text));
      await expect(transport(server.url).call(ignored('/x'))).resolves.toBeUndefined();
    });

    it('still reads the error answer of a call whose success body is ignored', async () => {
      const server = await serve((_req, res) => sendJson(res, 422, { errors: [{ message: 'Amount is invalid', code: 822 }] }));
      const err = await failureOf(transport(server.url).call(ignored('/x')));
      expect(err).toMatchObject({ failure: 'status', status: 422, upstreamCode: 822, upstreamMessage: 'Amount is invalid' });
    });

    it('sends the given headers, accept json, and a JSON body with its content type', async () => {
      const server = await serve((_req, res) => sendJson(res, 200, { ok: true }));
      await transport(server.url).call({
        method: 'PATCH',
        route: '/v1/things',
        path: '/v1/things',
        headers: { 'Pos-Access-Token': 'tok', 'x-request-id': 'req-1' },
        body: { amount: 125.5, note: 'ü' },
        response: Ok,
      });
      const [seen] = server.requests;
      expect(seen?.method).toBe('PATCH');
      expect(seen?.headers['pos-access-token']).toBe('tok');
      expect(seen?.headers['x-request-id']).toBe('req-1');
      expect(seen?.headers.accept).toBe('application/json');
      expect(seen?.headers['content-type']).toBe('application/json');
      expect(JSON.parse(seen.body)).toEqual({ amount: 125.5, note: 'ü' });
    });

    it('sends no body and no content type on a GET', async () => {
      const server = await serve((_req, res) => sendJson(res, 200, { ok: true }));
      await transport(server.url).call(get('/x', Ok));
      expect(server.requests[0]?.body).toBe('');
      expect(server.requests[0]?.headers['content-type']).toBeUndefined();
    });
  });

  describe('bad responses', () => {
    it('refuses a 2xx body that is not JSON', async () => {
      const server = await serve((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok!'));
      const err = await failureOf(transport(server.url).call(get('/x', Ok)));
      expect(err.failure).toBe('bad_response');
      expect(err.status).toBe(200);
      expect(err.detail).toBe('the body is not JSON');
    });

    it('names the offending field path of a wrong-shaped body', async () => {
      const check = checkRecord();
      const broken = { ...check, check_items: [{ ...check.check_items[0], id: 'not-a-uuid' }] };
      const server = await serve((_req, res) => sendJson(res, 200, broken));
      const err = await failureOf(transport(server.url).call(get('/checks/x', Check)));
      expect(err.failure).toBe('bad_response');
      expect(err.status).toBe(200);
      expect(err.detail).toMatch(/^field check_items\[0\]\.id: /);
    });

    it('refuses a body that lacks a documented field', async () => {
      const { alias: _alias, ...withoutAlias } = checkRecord();
      const server = await serve((_req, res) => sendJson(res, 200, withoutAlias));
      const err = await failureOf(transport(server.url).call(get('/checks/x', Check)));
      expect(err.failure).toBe('bad_response');
      expect(err.detail).toMatch(/^field alias: /);
    });

    it('refuses a body of the wrong top-level type without naming a field', async () => {
      const server = await serve((_req, res) => sendJson(res, 200, [1, 2]));
      const err = await failureOf(transport(server.url).call(get('/x', Ok)));
      expect(err.failure).toBe('bad_response');
      expect(err.detail).toMatch(/^the body: /);
    });

    it.each([302, 307])('does not follow a %i redirect to another host', async (status) => {
      const elsewhere = await serve((_req, res) => sendJson(res, 200, { ok: true }));
      const server = await serve((_req, res) => res.writeHead(status, { location: `${elsewhere.url}/stolen` }).end());
      const err = await failureOf(transport(server.url).call(get('/x', Ok, { headers: { 'Pos-Access-Token': 'secret' } })));
      expect(err.failure).toBe('bad_response');
      expect(err.status).toBe(status);
      expect(server.requests).toHaveLength(1);
      expect(elsewhere.requests).toHaveLength(0);
    });

    it('refuses a body larger than maxResponseBytes', async () => {
      const huge = JSON.stringify({ ok: true, pad: 'a'.repeat(MiB) });
      const server = await serve((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(huge));
      const err = await failureOf(transport(server.url).call(get('/x', Ok)));
      expect(err.failure).toBe('bad_response');
      expect(err.detail).toBe('the body is too large');
    });

    it('accepts a body just under maxResponseBytes', async () => {
      const body = JSON.stringify({ ok: true, pad: 'a'.repeat(1000) });
      const server = await serve((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
      const value = await transport(server.url, { maxResponseBytes: Buffer.byteLength(body) }).call(get('/x', Ok));
      expect(value).toEqual({ ok: true });
    });
  });

  describe('error statuses', () => {
    it('turns a 404 into a status failure with the safe upstream message', async () => {
      const server = await serve((_req, res) => sendJson(res, 404, { errors: [{ message: 'record not found' }] }));
      const err = await failureOf(transport(server.url).call(get('/checks/x', Check)));
      expect(err.failure).toBe('status');
      expect(err.status).toBe(404);
      expect(err.upstreamCode).toBeUndefined();
      expect(err.upstreamMessage).toBe('record not found');
    });

    it('reads the upstream error code of a 401', async () => {
      const server = await serve((_req, res) => sendJson(res, 401, { errors: [{ message: 'Invalid token', code: 960 }] }));
      const err = await failureOf(transport(server.url).call(get('/x', Ok)));
      expect(err.failure).toBe('status');
      expect(err.status).toBe(401);
      expect(err.upstreamCode).toBe(960);
    });

    it.each([821, 822, 832, '822'])('reads upstream code %p of a 422', async (code) => {
      const server = await serve((_req, res) => sendJson(res, 422, { errors: [{ message: 'refused', code }] }));
      const err = await failureOf(transport(server.url).call(get('/x', Ok)));
      expect(err.failure).toBe('status');
      expect(err.status).toBe(422);
      expect(err.upstreamCode).toBe(Number(code));
    });

    it('keeps a 500 with an HTML body as a status failure without code or message', async () => {
      const server = await serve((_req, res) =>
        res.writeHead(500, { 'content-type': 'text/html' }).end('<html><body>Internal Server Error at 10.0.0.7</body></html>'),
      );
      const err = await failureOf(transport(server.url).call(get('/x', Ok)));
      expect(err.failure).toBe('status');
      expect(err.status).toBe(500);
      expect(err.upstreamCode).toBeUndefined();
      expect(err.upstreamMessage).toBeUndefined();
    });

    describe.each<{ service: 'pos' | 'reservation'; credentials: Record<string, string> }>([
      { service: 'pos', credentials: { 'Pos-Access-Token': 'pos-secret-token' } },
      {
        service: 'reservation',
        credentials: {
          'Reservation-Access-Token': 'res-secret-token',
          Authorization: 'Bearer api-secret-key',
          EMPLOYEE_TOKEN: 'employee-secret',
          STORE_PIN_CODE: '4821',
          SLUG_NAME: 'venue-slug',
        },
      },
    ])('of the $service service', ({ service, credentials }) => {
      const echoes: Array<[string, string]> = [
        ...Object.entries(credentials).map(([name, value]): [string, string] => [name, `Invalid token ${value}`]),
        // The upstream may quote only the credential part of an `Authorization: <scheme> <credentials>` value.
        ...(service === 'reservation' ? [['Authorization (credentials part)', 'Invalid key api-secret-key'] as [string, string]] : []),
      ];

      it.each(echoes)('drops a message that quotes the %s sent on the call, keeping the code', async (_header, message) => {
        const server = await serve((_req, res) => sendJson(res, 401, { errors: [{ message, code: 960 }] }));
        const headers = { 'x-request-id': 'req-1', ...credentials };
        const err = await failureOf(transport(server.url, { service }).call(get('/x', Ok, { headers }), { secrets: Object.values(credentials) }));
        expect(err.status).toBe(401);
        expect(err.upstreamCode).toBe(960);
        expect(err.upstreamMessage).toBeUndefined();
      });

      it('keeps a message that quotes only a header that is no credential', async () => {
        const server = await serve((_req, res) => sendJson(res, 422, { errors: [{ message: 'Request req-12345 refused', code: 822 }] }));
        const headers = { 'x-request-id': 'req-12345', ...credentials };
        const err = await failureOf(transport(server.url, { service }).call(get('/x', Ok, { headers }), { secrets: Object.values(credentials) }));
        expect(err.upstreamMessage).toBe('Request req-12345 refused');
      });
    });

    it('drops an unsafe upstream message', async () => {
      const server = await serve((_req, res) => sendJson(res, 400, { errors: [{ message: 'see http://10.0.0.7:8080/debug' }] }));
      const err = await failureOf(transport(server.url).call(get('/x', Ok)));
      expect(err.upstreamMessage).toBeUndefined();
    });
  });

  describe('transport failures', () => {
    it('reports a refused connection as unavailable without the address', async () => {
      const port = await closedPort();
      const err = await failureOf(transport(`http://127.0.0.1:${port}`).call(get('/x', Ok)));
      expect(err.failure).toBe('unavailable');
      expect(err.status).toBeUndefined();
      expect(err.message).not.toContain(String(port));
      expect(err.detail ?? '').not.toContain(String(port));
    });

    it('reports a service that never answers as a timeout', async () => {
      const server = await serve(() => undefined);
      const started = Date.now();
      const err = await failureOf(transport(server.url, { headersTimeoutMs: 200 }).call(get('/x', Ok)));
      expect(err.failure).toBe('timeout');
      expect(err.status).toBeUndefined();
      // Undici runs headers timeouts on its coarse "fast timers" (~500 ms ticks), so 200 ms fires within about a second.
      expect(Date.now() - started).toBeLessThan(2000);
    });

    it("reports the caller's abort as a timeout", async () => {
      const server = await serve(() => undefined);
      const controller = new AbortController();
      const pending = transport(server.url).call(get('/x', Ok, { signal: controller.signal }));
      setTimeout(() => controller.abort(), 50);
      const err = await failureOf(pending);
      expect(err.failure).toBe('timeout');
    });
  });

  describe('addressing', () => {
    it.each(['/prefix', '/prefix/'])('keeps the base URL path prefix %s', async (prefix) => {
      const server = await serve((_req, res) => sendJson(res, 200, { ok: true }));
      await transport(server.url + prefix).call(get('/v1/reservations', Ok));
      expect(server.requests[0]?.url).toBe('/prefix/v1/reservations');
    });

    it('encodes query parameters and leaves out undefined ones', async () => {
      const server = await serve((_req, res) => sendJson(res, 200, { ok: true }));
      await transport(server.url).call(
        get('/v1/reservations', Ok, { query: { date: '2026-11-21', note: 'a b&c=d/é#x', page: 2, revenue_center_id: undefined } }),
      );
      const url = new URL(server.requests[0].url, 'http://placeholder');
      expect(url.pathname).toBe('/v1/reservations');
      expect([...url.searchParams.keys()]).toEqual(['date', 'note', 'page']);
      expect(url.searchParams.get('note')).toBe('a b&c=d/é#x');
      expect(url.searchParams.get('page')).toBe('2');
      expect(server.requests[0].url).not.toContain('&c=d');
    });

    it('adds no query string when every parameter is undefined', async () => {
      const server = await serve((_req, res) => sendJson(res, 200, { ok: true }));
      await transport(server.url).call(get('/x', Ok, { query: { a: undefined } }));
      expect(server.requests[0]?.url).toBe('/x');
    });
  });

  describe('records', () => {
    it("gives the context's record one record per call with the route template and status", async () => {
      const server = await serve((req, res) => (req.url === '/checks/missing' ? sendJson(res, 404, { errors: [{ message: 'record not found' }] }) : sendJson(res, 200, { ok: true })));
      const http = transport(server.url);
      const records: UpstreamCallRecord[] = [];
      await http.call(get('/checks/1', Ok, { route: '/checks/:id' }), { record: (r) => records.push(r) });
      await failureOf(http.call(get('/checks/missing', Ok, { route: '/checks/:id' }), { record: (r) => records.push(r) }));
      expect(records).toHaveLength(2);
      expect(records[0]).toMatchObject({ service: 'pos', method: 'GET', route: '/checks/:id', status: 200 });
      expect(records[0]?.error).toBeUndefined();
      expect(records[1]).toMatchObject({ service: 'pos', method: 'GET', route: '/checks/:id', status: 404 });
      expect(records[1]?.error).toBeInstanceOf(UpstreamError);
      for (const r of records) expect(r.durationMs).toBeGreaterThanOrEqual(0);
    });

    it('records the status of a bad response and none for a refused connection', async () => {
      const server = await serve((_req, res) => res.writeHead(200).end('not json'));
      const records: UpstreamCallRecord[] = [];
      await failureOf(transport(server.url).call(get('/x', Ok), { record: (r) => records.push(r) }));
      await failureOf(transport(`http://127.0.0.1:${await closedPort()}`).call(get('/y', Ok), { record: (r) => records.push(r) }));
      expect(records.map((r) => [r.route, r.status, r.error?.failure])).toEqual([
        ['/x', 200, 'bad_response'],
        ['/y', undefined, 'unavailable'],
      ]);
    });
  });

  describe('pool', () => {
    it('reuses one keep-alive connection for sequential calls when the pool has one', async () => {
      const server = await serve((_req, res) => sendJson(res, 200, { ok: true }));
      const http = transport(server.url, { connections: 1 });
      await http.call(get('/a', Ok));
      await http.call(get('/b', Ok));
      expect(server.requests).toHaveLength(2);
      expect(server.connections()).toBe(1);
    });

    it('keeps connections alive across sequential calls with a wider pool', async () => {
      // Undici's Pool may hand the next request to a second client while the first is still draining, so
      // sequential calls over a pool of 8 settle on at most two sockets rather than one per call.
      const server = await serve((_req, res) => sendJson(res, 200, { ok: true }));
      const http = transport(server.url);
      for (let i = 0; i < 10; i++) await http.call(get(`/n/${i}`, Ok));
      expect(server.requests).toHaveLength(10);
      expect(server.connections()).toBeLessThanOrEqual(2);
      expect(server.requests.every((r) => r.headers.connection !== 'close')).toBe(true);
    });
  });
});

describe('uuidSegment', () => {
  it('passes a UUID through', () => {
    expect(uuidSegment('3F2504E0-4F89-11D3-9A0C-0305E82C3301', 'id')).toBe('3F2504E0-4F89-11D3-9A0C-0305E82C3301');
  });

  it.each(['..', '%2e%2e', 'a/b', '', '3f2504e0-4f89-11d3-9a0c-0305e82c3301/../employees'])('refuses %p with an InputError naming the field', (value) => {
    expect(() => uuidSegment(value, 'input.id')).toThrow(InputError);
    try {
      uuidSegment(value, 'input.id');
    } catch (err) {
      expect((err as InputError).field).toBe('input.id');
    }
  });
});

describe('UpstreamHttp empty bodies', () => {
  it('passes a body through', async () => {
    const server = await serve((_req, res) => sendJson(res, 200, { ok: true }));
    await expect(transport(server.url).call(get('/x', Ok))).resolves.toEqual({ ok: true });
  });

  it('refuses an empty body as a bad response when the operation gives no onEmpty', async () => {
    const server = await serve((_req, res) => sendJson(res, 200));
    const err = await failureOf(transport(server.url, { service: 'reservation' }).call(get('/x', Ok)));
    expect(err).toMatchObject({ service: 'reservation', failure: 'bad_response', detail: 'the body is empty' });
  });
});

describe('UpstreamHttp before a write', () => {
  it('awaits the context\'s beforeWrite before a write, once per call, and never for a GET', async () => {
    const server = await serve((_req, res) => sendJson(res, 200, { ok: true }));
    const http = transport(server.url);
    const seen: string[] = [];
    const beforeWrite = () => (seen.push(`hook at ${server.requests.length} requests`), Promise.resolve());
    await http.call(get('/read', Ok), { beforeWrite });
    await http.call({ method: 'POST', route: '/write', path: '/write', headers: {}, body: {}, response: Ok }, { beforeWrite });
    expect(seen).toEqual(['hook at 1 requests']);
    expect(server.requests.map((r) => r.method)).toEqual(['GET', 'POST']);
  });

  it('sends nothing when beforeWrite rejects: the write fails with its error, and no call is recorded as sent', async () => {
    const server = await serve((_req, res) => sendJson(res, 200, { ok: true }));
    const records: UpstreamCallRecord[] = [];
    const refused = transport(server.url).call(
      { method: 'POST', route: '/write', path: '/write', headers: {}, body: {}, response: Ok },
      { beforeWrite: () => Promise.reject(new Error('not durable')), record: (r) => records.push(r) },
    );
    await expect(refused).rejects.toThrow('not durable');
    expect(server.requests).toHaveLength(0);
    expect(records.filter((r) => r.sent !== false)).toHaveLength(0);
  });
});
