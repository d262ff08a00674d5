import { randomUUID } from 'node:crypto';
import { UpstreamError, type ServiceName } from '../../src/errors/UpstreamError';
import { UpstreamHttp, type CallScope, type UpstreamCallRecord } from '../../src/upstreams/http';
import { thrownBy } from './failures';
import { sendJson, startScriptedServer, type ScriptedHandler, type ScriptedServer } from './upstreamServer';

/** Ids a client must refuse before any call: each would reach another path or host if put in a path unchecked. */
export const INJECTIONS = ['..', '%2e%2e', 'a/b', '1?x=1', 'http://evil.test/x', 'abc\r\nX: y', `${randomUUID()}/../employees`];

/** The gateway's own headers a client's scope adds to every call. */
export const GATEWAY_HEADERS = { 'x-request-id': 'req-7f3a', traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' };

/** One scripted upstream and the transport to it, shared by a client test file; `reply` answers each request. */
export interface ClientHarness {
  readonly server: ScriptedServer;
  readonly http: UpstreamHttp;
  /** Every record of the calls made through `scope()` since the test started. */
  records: UpstreamCallRecord[];
  /** How the upstream answers; a 500 unless the test says otherwise. */
  reply: ScriptedHandler;
  /** A request's call scope: the gateway headers, the records sink. */
  scope(): CallScope;
  /** The one request the upstream received (fails when there were more or none). */
  onlyRequest(): ScriptedServer['requests'][number];
}

/**
 * The client tests' harness (test/upstreams/<service>/…Client.test.ts): a real HTTP server on port 0 and a real
 * UpstreamHttp to it, started before the file's tests and closed after them; requests and records reset per test.
 */
export function clientHarness(service: ServiceName): ClientHarness {
  let server: ScriptedServer | undefined;
  let http: UpstreamHttp | undefined;
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('clientHarness: the server starts in beforeAll; read it inside a test');
    return value;
  };
  const harness: ClientHarness = {
    get server() {
      return started(server);
    },
    get http() {
      return started(http);
    },
    records: [],
    reply: (_req, res) => sendJson(res, 500),
    scope: () => ({ headers: () => ({ ...GATEWAY_HEADERS }), record: (r) => harness.records.push(r) }),
    onlyRequest: () => {
      expect(harness.server.requests).toHaveLength(1);
      return harness.server.requests[0];
    },
  };
  beforeAll(async () => {
    server = await startScriptedServer((req, res, body) => harness.reply(req, res, body));
    http = new UpstreamHttp({
      service,
      baseUrl: server.url,
      connectTimeoutMs: 500,
      headersTimeoutMs: 1000,
      bodyTimeoutMs: 1000,
      connections: 8,
      maxResponseBytes: 1024 * 1024,
    });
  });
  beforeEach(() => {
    harness.server.requests.length = 0;
    harness.records = [];
    harness.reply = (_req, res) => sendJson(res, 500);
  });
  afterAll(async () => {
    await harness.http.close();
    await harness.server.close();
  });
  return harness;
}

/** The UpstreamError a synchronous run throws (a refusal before any call); any other error is rethrown. */
export function catchError(run: () => unknown): UpstreamError {
  return thrownBy(UpstreamError, run);
}
