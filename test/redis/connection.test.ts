import { randomUUID } from 'node:crypto';
import { SAMPLE, startSandbox, type Sandbox } from '../../src/sandbox';
import { spawnGateway, type GatewayProcess } from '../support/gatewayProcess';
import { LA_TERRAZZA } from '../support/stack';
import { closedPort } from '../support/upstreamServer';

/**
 * Redis down from the first moment: a production gateway (src/main.ts, what `npm start` runs) with REDIS_URL at a
 * port that refuses connections. Readiness never waits on Redis, and each policy falls back as documented.
 */
describe('a production gateway whose Redis is down', () => {
  let sandbox: Sandbox;
  let gateway: GatewayProcess;
  let url: string;

  beforeAll(async () => {
    sandbox = await startSandbox();
    gateway = spawnGateway('src/main.ts', {
      NODE_ENV: 'production',
      REDIS_URL: `redis://127.0.0.1:${await closedPort()}`,
      RESERVATION_BASE_URL: sandbox.reservationUrl,
      POS_BASE_URL: sandbox.posUrl,
      PORT: '0',
      HOST: '127.0.0.1',
      SHUTDOWN_DELAY_MS: '0',
    });
    const listening = await gateway.waitForLog('gateway listening');
    await gateway.waitForLog('gateway ready');
    url = `http://127.0.0.1:${String(listening.port)}`;
  }, 30_000);
  afterAll(async () => {
    gateway?.kill();
    await sandbox?.close();
  });

  const post = (query: string, variables: Record<string, unknown>, headers: Record<string, string> = {}) =>
    fetch(`${url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...LA_TERRAZZA, ...headers }, body: JSON.stringify({ query, variables }) });

  it('is ready, says Redis is unavailable in its log, and serves queries', async () => {
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    await gateway.waitForLog('Redis unavailable: shared state falls back as documented');
    const res = await post(`query($id: ID!) { check(id: $id) { id } }`, { id: SAMPLE.laTerrazza.openCheckId });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: { check: { id: SAMPLE.laTerrazza.openCheckId } } });
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
  });

  it('runs mutations without an Idempotency-Key, and answers one with a key IDEMPOTENCY_UNAVAILABLE', async () => {
    const book = `mutation($input: CreateReservationInput!) { createReservation(input: $input) { reservation { id } } }`;
    const input = { revenueCenterId: SAMPLE.laTerrazza.revenueCenterIds[0], date: '2099-12-23T19:30', guestCount: 2, customer: { firstName: 'Ada' } };
    const plain = await post(book, { input });
    expect(plain.status).toBe(200);
    expect(((await plain.json()) as { errors?: unknown }).errors).toBeUndefined();
    const keyed = await post(book, { input }, { 'Idempotency-Key': `redis-down-${randomUUID()}` });
    expect(keyed.status).toBe(503);
    expect(((await keyed.json()) as { errors: Array<{ extensions: { code: string } }> }).errors[0].extensions.code).toBe('IDEMPOTENCY_UNAVAILABLE');
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
  });
});
