import { Writable } from 'node:stream';
import { loadConfig } from '../../src/config';
import { idempotencyFromConfig } from '../../src/idempotency/idempotencyStep';
import { createLogger } from '../../src/logger';
import { GatewayMetrics } from '../../src/observability/metrics';

const REQUIRED = { NODE_ENV: 'test', RESERVATION_BASE_URL: 'http://reservation.test', POS_BASE_URL: 'http://pos.test' };
const logger = createLogger({ level: 'silent', destination: new Writable({ write: (_c, _e, done) => done() }) });

describe('idempotencyFromConfig', () => {
  it('reads the IDEMPOTENCY_ settings, with their defaults', () => {
    expect(loadConfig(REQUIRED).idempotency).toEqual({ ttlSeconds: 86_400, maxResponseBytes: 262_144, failOpen: false, required: [], memoryMaxBytes: 67_108_864 });
    const config = loadConfig({ ...REQUIRED, IDEMPOTENCY_TTL_SECONDS: '60', IDEMPOTENCY_FAIL_OPEN: 'true', IDEMPOTENCY_REQUIRED: ' createReservation, updatePaymentRequest ' });
    expect(config.idempotency).toMatchObject({ ttlSeconds: 60, failOpen: true, required: ['createReservation', 'updatePaymentRequest'] });
  });

  it('refuses IDEMPOTENCY_REQUIRED values that are not GraphQL names', () => {
    expect(() => loadConfig({ ...REQUIRED, IDEMPOTENCY_REQUIRED: 'create-reservation' })).toThrow(/IDEMPOTENCY_REQUIRED: must be comma-separated GraphQL names/);
  });

  it('stops the start on an IDEMPOTENCY_REQUIRED name that is not a mutation of the schema', () => {
    const config = loadConfig({ ...REQUIRED, IDEMPOTENCY_REQUIRED: 'createReservation,createBooking' });
    expect(() => idempotencyFromConfig({ config, logger, metrics: new GatewayMetrics({ defaultMetrics: false }) })).toThrow(
      'IDEMPOTENCY_REQUIRED: not a mutation of the schema: createBooking',
    );
  });
});
