import { Writable } from 'node:stream';
import type { GraphqlRequest, GraphqlResponse } from '../../src/pipeline/types';
import { operationsOfBody } from '../../src/http/operationRequests';
import { createRequestRecord } from '../../src/pipeline/record';
import { idempotencyStep } from '../../src/idempotency/idempotencyStep';
import { IdempotencyStoreUnavailableError, MemoryIdempotencyStore, type IdempotencyStore } from '../../src/idempotency/store';
import { createLogger } from '../../src/logger';
import type { UpstreamCallRecord } from '../../src/upstreams/http';

const MUTATION = { query: 'mutation Book { createReservation(input: {}) { reservation { id } } }', operationName: 'Book' };
const sentCall: UpstreamCallRecord = { service: 'reservation', method: 'POST', route: '/v1/reservations', status: 201, durationMs: 1, sent: true, source: 'upstream' };

function requestWith(headers: Record<string, string>, body: unknown = MUTATION): GraphqlRequest {
  return {
    method: 'POST',
    url: new URL('http://gateway.invalid/graphql'),
    header: (name) => headers[name],
    incomingHeaders: {},
    read: operationsOfBody(body),
    record: createRequestRecord('unit-1'),
    context: () => Promise.reject(new Error('no context: next() stands in for execution here')),
  };
}
const ok = (): GraphqlResponse => ({ status: 200, headers: new Map([['content-type', 'application/json']]), body: '{"data":{}}' });
const lines: Array<Record<string, unknown>> = [];
const logger = createLogger({ level: 'info', destination: new Writable({ write: (c: Buffer, _e, done) => (lines.push(JSON.parse(c.toString())), done()) }) });

/** A store whose every command fails, as Redis does while it is away. */
const downStore: IdempotencyStore = {
  take: () => Promise.reject(new IdempotencyStoreUnavailableError()),
  renew: () => Promise.reject(new IdempotencyStoreUnavailableError()),
  markSent: () => Promise.reject(new IdempotencyStoreUnavailableError()),
  complete: () => Promise.reject(new IdempotencyStoreUnavailableError()),
  release: () => Promise.reject(new IdempotencyStoreUnavailableError()),
};

describe('idempotencyStep, when things fail', () => {
  it('never touches the store for a request without the header', async () => {
    const step = idempotencyStep({ store: downStore, logger });
    expect((await step(requestWith({}), () => Promise.resolve(ok()))).status).toBe(200);
  });

  it('answers an APQ hash that resolved to no text itself, so no text registered meanwhile runs unguarded', async () => {
    const step = idempotencyStep({ store: new MemoryIdempotencyStore({ maxBytes: 1 << 20 }), logger });
    const next = jest.fn(() => Promise.resolve(ok()));
    const res = await step(requestWith({ 'idempotency-key': 'k0' }, { extensions: { persistedQuery: { version: 1, sha256Hash: 'a'.repeat(64) } } }), next);
    expect([res.status, JSON.parse(res.body.toString()).errors[0].extensions.code, res.headers.get('cache-control')]).toEqual([200, 'PERSISTED_QUERY_NOT_FOUND', 'private, no-cache, must-revalidate']);
    expect(next).not.toHaveBeenCalled();
  });

  it('answers 503 without running the mutation when the store is down', async () => {
    const step = idempotencyStep({ store: downStore, logger });
    const next = jest.fn(() => Promise.resolve(ok()));
    const res = await step(requestWith({ 'idempotency-key': 'k1' }), next);
    expect([res.status, JSON.parse(res.body.toString()).errors[0].extensions.code]).toEqual([503, 'IDEMPOTENCY_UNAVAILABLE']);
    expect(next).not.toHaveBeenCalled();
  });

  it('runs the mutation unguarded when the store is down and failOpen is set, and logs it', async () => {
    const step = idempotencyStep({ store: downStore, logger, failOpen: true });
    const request = requestWith({ 'idempotency-key': 'k2' });
    expect((await step(request, () => Promise.resolve(ok()))).status).toBe(200);
    expect(request.record.idempotency?.outcome).toBe('unguarded');
    expect(lines.some((l) => l.msg === 'idempotency store unavailable: keyed mutation runs without the guarantee (IDEMPOTENCY_FAIL_OPEN)')).toBe(true);
  });

  it('still answers the first request when its response cannot be stored, and says so', async () => {
    const memory = new MemoryIdempotencyStore({ maxBytes: 1 << 20 });
    const store: IdempotencyStore = {
      take: (...a) => memory.take(...a),
      renew: (...a) => memory.renew(...a),
      markSent: (...a) => memory.markSent(...a),
      release: (...a) => memory.release(...a),
      complete: () => Promise.reject(new Error('gone')),
    };
    const step = idempotencyStep({ store, logger });
    const request = requestWith({ 'idempotency-key': 'k3' });
    const res = await step(request, () => (request.record.upstreamCalls.push(sentCall), Promise.resolve(ok())));
    expect(res.status).toBe(200);
    expect(request.record.idempotency?.outcome).toBe('store_failed');
    expect(lines.some((l) => l.msg === 'idempotency record could not be written')).toBe(true);
  });

  it('keeps a 500 for a request that threw after an upstream call went out, and frees the key when none did', async () => {
    const store = new MemoryIdempotencyStore({ maxBytes: 1 << 20 });
    const step = idempotencyStep({ store, logger });
    const sent = requestWith({ 'idempotency-key': 'k4' });
    await expect(step(sent, () => (sent.record.upstreamCalls.push(sentCall), Promise.reject(new Error('bug'))))).rejects.toThrow('bug');
    const replayed = await step(requestWith({ 'idempotency-key': 'k4' }), () => Promise.resolve(ok()));
    expect([replayed.status, replayed.headers.get('idempotent-replayed')]).toEqual([500, 'true']);
    const unsent = requestWith({ 'idempotency-key': 'k5' });
    await expect(step(unsent, () => Promise.reject(new Error('bug')))).rejects.toThrow('bug');
    expect((await step(requestWith({ 'idempotency-key': 'k5' }), () => Promise.resolve(ok()))).headers.get('idempotent-replayed')).toBeUndefined();
  });
});
