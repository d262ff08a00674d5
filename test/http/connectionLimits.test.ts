import { connect, type Socket } from 'node:net';
import { checkingIntervalMs } from '../../src/http/connectionLimits';
import { startFaultyUpstream } from '../support/faultyUpstream';
import { eventually, sleep } from '../support/gatewayProcess';
import { startStack, type Stack } from '../support/stack';

/** A raw client socket: what it received, and whether the gateway has closed it. */
interface RawClient {
  socket: Socket;
  received(): string;
  closed: Promise<void>;
  isClosed(): boolean;
}

async function open(url: string): Promise<RawClient> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  let data = '';
  let done = false;
  socket.on('data', (chunk: Buffer) => (data += chunk.toString('latin1')));
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  void closed.then(() => (done = true));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return { socket, received: () => data, closed, isClosed: () => done };
}

/** Whether the socket is closed within `ms` (a generous bound: the configured time plus Node's checking slack). */
function closedWithin(client: RawClient, ms: number): Promise<boolean> {
  return Promise.race([client.closed.then(() => true), sleep(ms).then(() => false)]);
}

/** Writes `line` every `everyMs` until the socket closes: a slowloris client. */
function dribble(client: RawClient, first: string, line: string, everyMs: number): void {
  client.socket.write(first);
  const timer = setInterval(() => {
    if (client.isClosed()) clearInterval(timer);
    else client.socket.write(line);
  }, everyMs);
  void client.closed.then(() => clearInterval(timer));
}

const HEADERS_MS = 300;
const REQUEST_MS = 600;
const KEEP_ALIVE_MS = 300;
/** Far above the limits under test, far below the test's own timeout: no timing is asserted, only closing. */
const BOUND_MS = 5000;

const LIMITS = {
  SERVER_HEADERS_TIMEOUT_MS: String(HEADERS_MS),
  SERVER_REQUEST_TIMEOUT_MS: String(REQUEST_MS),
  SERVER_KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_MS),
  SERVER_MAX_REQUESTS_PER_SOCKET: '3',
  SERVER_MAX_HEADER_BYTES: '4096',
};

describe('connection limits', () => {
  let stack: Stack;
  const clients: RawClient[] = [];
  const client = async (url = stack.url) => {
    const c = await open(url);
    clients.push(c);
    return c;
  };
  beforeAll(async () => {
    stack = await startStack({ env: LIMITS });
  });
  afterEach(() => {
    for (const c of clients.splice(0)) c.socket.destroy();
  });
  afterAll(() => stack.close());

  it('closes a connection that sends nothing, answering 408', async () => {
    const idle = await client();
    expect(await closedWithin(idle, BOUND_MS)).toBe(true);
    expect(idle.received()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('closes a client that trickles its headers (slowloris), while it still sends', async () => {
    const slow = await client();
    dribble(slow, 'POST /graphql HTTP/1.1\r\nHost: gateway\r\n', 'X-Padding: a\r\n', 50);
    expect(await closedWithin(slow, BOUND_MS)).toBe(true);
    expect(slow.received()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('closes a client that trickles its body past the request timeout', async () => {
    const slow = await client();
    const head = 'POST /graphql HTTP/1.1\r\nHost: gateway\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n';
    dribble(slow, head, ' ', 50);
    expect(await closedWithin(slow, BOUND_MS)).toBe(true);
    expect(slow.received()).not.toMatch(/^HTTP\/1\.1 200 /);
    const errors = stack.logs.filter((line) => line.includes('"level":50'));
    expect(errors).toEqual([]);
  });

  it('closes a keep-alive connection left idle after its answer', async () => {
    const kept = await client();
    kept.socket.write('GET /healthz HTTP/1.1\r\nHost: gateway\r\n\r\n');
    expect(await eventually(() => kept.received().includes('\r\n\r\n'))).toBe(true);
    expect(kept.received()).toMatch(/^HTTP\/1\.1 200 /);
    expect(kept.received()).toMatch(/keep-alive/i);
    expect(await closedWithin(kept, BOUND_MS)).toBe(true);
  });

  it('closes a connection after its maximum of requests, saying so on the last answer', async () => {
    const busy = await client();
    for (let i = 1; i <= 3; i++) {
      busy.socket.write('GET /healthz HTTP/1.1\r\nHost: gateway\r\n\r\n');
      expect(await eventually(() => busy.received().split('HTTP/1.1 200').length - 1 === i)).toBe(true);
    }
    const answers = busy.received().split(/(?=HTTP\/1\.1 )/);
    expect(answers.map((a) => /connection: close/i.test(a))).toEqual([false, false, true]);
    expect(await closedWithin(busy, BOUND_MS)).toBe(true);
  });

  it('refuses headers over the maximum size with 431', async () => {
    const res = await fetch(`${stack.url}/healthz`, { headers: { 'x-padding': 'a'.repeat(5000) } });
    expect(res.status).toBe(431);
    expect((await fetch(`${stack.url}/healthz`, { headers: { 'x-padding': 'a'.repeat(2000) } })).status).toBe(200);
  });

  it('keeps serving normal requests while slow clients hold sockets', async () => {
    const slow = await Promise.all(Array.from({ length: 30 }, () => client()));
    for (const c of slow) dribble(c, 'GET /graphql HTTP/1.1\r\nHost: gateway\r\n', 'X-Padding: a\r\n', 50);
    for (let i = 0; i < 5; i++) {
      const res = await stack.gql(`query Staff { employees(perPage: 1) { nodes { id } } }`);
      expect(res.status).toBe(200);
      expect(res.body.errors).toBeUndefined();
    }
    const closed = await Promise.all(slow.map((c) => closedWithin(c, BOUND_MS)));
    expect(closed.every(Boolean)).toBe(true);
  });
});

describe('connection limits: maximum of connections', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ env: { SERVER_MAX_CONNECTIONS: '4', SERVER_HEADERS_TIMEOUT_MS: '20000', SERVER_REQUEST_TIMEOUT_MS: '20000' } });
  });
  afterAll(() => stack.close());

  it('closes connections past the maximum at once, and accepts again when one frees up', async () => {
    const held = await Promise.all(Array.from({ length: 4 }, () => open(stack.url)));
    const extra = await open(stack.url);
    expect(await closedWithin(extra, BOUND_MS)).toBe(true);
    expect(extra.received()).toBe('');
    expect(held.some((c) => c.isClosed())).toBe(false);
    held.forEach((c) => c.socket.destroy());
    expect(await eventually(async () => (await fetch(`${stack.url}/healthz`).then((r) => r.status, () => 0)) === 200)).toBe(true);
  });
});

describe('connection limits: the drain', () => {
  it('finishes the requests in flight and stops, slow clients notwithstanding', async () => {
    const pos = await startFaultyUpstream('hold');
    // A drain timeout longer than this test's own: the stop must not be waiting for it.
    const stack = await startStack({ env: { POS_BASE_URL: pos.url, SERVER_HEADERS_TIMEOUT_MS: '300', SERVER_REQUEST_TIMEOUT_MS: '600', DRAIN_TIMEOUT_MS: '60000' } });
    try {
      const slow = await Promise.all(Array.from({ length: 5 }, () => open(stack.url)));
      for (const c of slow) dribble(c, 'GET /graphql HTTP/1.1\r\nHost: gateway\r\n', 'X-Padding: a\r\n', 50);
      const inFlight = stack.gql(`query Staff { employees(perPage: 1) { nodes { id } } }`);
      expect(await eventually(() => pos.requests.length === 1)).toBe(true);
      const stopped = stack.gateway.stop();
      pos.release();
      const res = await inFlight;
      expect(res.status).toBe(200);
      expect(res.body.errors).toBeUndefined();
      await stopped;
      expect(await Promise.all(slow.map((c) => closedWithin(c, BOUND_MS)))).toEqual(slow.map(() => true));
      expect(stack.gateway.state).toBe('stopped');
    } finally {
      await stack.sandbox.close();
      await pos.close();
    }
  });
});

describe('checkingIntervalMs', () => {
  it('checks the timeouts at a quarter of the shortest, at most every second and at least every 10 ms', () => {
    expect(checkingIntervalMs({ headersTimeoutMs: 5000, requestTimeoutMs: 30_000 })).toBe(1000);
    expect(checkingIntervalMs({ headersTimeoutMs: 300, requestTimeoutMs: 600 })).toBe(75);
    expect(checkingIntervalMs({ headersTimeoutMs: 1, requestTimeoutMs: 1 })).toBe(10);
  });
});
