import { z } from 'zod';
import { UpstreamHttp, type UpstreamCallRecord, type UpstreamRequest } from '../../src/upstreams/http';
import { closedPort, sendJson, startScriptedServer, type ScriptedServer } from '../support/upstreamServer';

const Ok = z.object({ ok: z.boolean() });
const post: UpstreamRequest<{ ok: boolean }> = { method: 'POST', route: '/v1/x', path: '/v1/x', headers: {}, body: { a: 1 }, response: Ok };

let server: ScriptedServer | undefined;
let http: UpstreamHttp | undefined;

function transport(baseUrl: string): UpstreamHttp {
  http = new UpstreamHttp({ service: 'reservation', baseUrl, connectTimeoutMs: 500, headersTimeoutMs: 300, bodyTimeoutMs: 300, connections: 2, maxResponseBytes: 1 << 20 });
  return http;
}

/** The one record a POST produced, whether it resolved or failed. */
async function recordOf(client: UpstreamHttp): Promise<UpstreamCallRecord> {
  const records: UpstreamCallRecord[] = [];
  await client.call(post, { record: (r) => records.push(r) }).catch(() => undefined);
  expect(records).toHaveLength(1);
  return records[0];
}

afterEach(async () => {
  await http?.close();
  await server?.close();
  http = undefined;
  server = undefined;
});

describe('wireSignal', () => {
  it('marks a call that the service answered as sent', async () => {
    server = await startScriptedServer((_req, res) => sendJson(res, 201, { ok: true }));
    expect(await recordOf(transport(server.url))).toMatchObject({ status: 201, sent: true });
  });

  it('marks a call whose connection was refused as not sent', async () => {
    const record = await recordOf(transport(`http://127.0.0.1:${await closedPort()}`));
    expect(record.error?.failure).toBe('unavailable');
    expect(record.sent).toBe(false);
  });

  it('marks a call that timed out after it was written as sent', async () => {
    // The service reads the request and never answers: it may have acted on it.
    server = await startScriptedServer(() => undefined);
    const record = await recordOf(transport(server.url));
    expect(record.error?.failure).toBe('timeout');
    expect(record.sent).toBe(true);
    expect(server.requests).toHaveLength(1);
  });

  it('marks a call aborted while its connection opened as not sent', async () => {
    server = await startScriptedServer((_req, res) => sendJson(res, 200, { ok: true }));
    const records: UpstreamCallRecord[] = [];
    const client = transport(server.url);
    // Aborted while still queued behind the pool's connect: undici never starts writing it.
    const controller = new AbortController();
    const call = client.call({ ...post, signal: controller.signal }, { record: (r) => records.push(r) }).catch(() => undefined);
    controller.abort();
    await call;
    expect(records).toEqual([expect.objectContaining({ sent: false })]);
    // Once the pool is done with it, it was still never written.
    await client.close();
    http = undefined;
    expect(server.requests).toHaveLength(0);
  });
});
