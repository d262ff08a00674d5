import { ConfigError, ConfigSchema, loadConfig } from '../src/config';
import { readmeSection, tableRows, unquote } from './support/readme';
import { thrownBy } from './support/failures';
import { spawnGateway } from './support/gatewayProcess';

const UPSTREAMS = { RESERVATION_BASE_URL: 'http://reservation.test', POS_BASE_URL: 'http://pos.test/api' };
/** What a production start of one process needs at least (NODE_ENV defaults to production). */
const REQUIRED = { ...UPSTREAMS, SINGLE_REPLICA: 'true' };
const REDIS_REQUIRED = /^REDIS_URL: is required when NODE_ENV is production, .*set SINGLE_REPLICA=true instead if this deployment is one process/;

/** What the settings table's default column should say for a setting: its schema default, or why there is none. */
function documentedDefault(key: keyof typeof ConfigSchema.shape): string {
  const parsed = ConfigSchema.shape[key].safeParse(undefined);
  if (!parsed.success) return '(required)';
  return parsed.data === undefined ? '(none)' : String(parsed.data);
}

describe('config', () => {
  describe('the settings table of docs/operations.md', () => {
    const rows = tableRows(readmeSection('Settings', 'docs/operations.md'));
    const documented = new Map(rows.map(([name, def]) => [unquote(name), unquote(def)]));

    it('lists every setting of the schema', () => {
      const missing = Object.keys(ConfigSchema.shape).filter((key) => !documented.has(key));
      expect(missing).toEqual([]);
    });

    it('lists nothing the schema does not read', () => {
      const unknown = [...documented.keys()].filter((name) => !(name in ConfigSchema.shape));
      expect(unknown).toEqual([]);
    });

    it('gives each setting the default the schema applies', () => {
      for (const key of Object.keys(ConfigSchema.shape) as Array<keyof typeof ConfigSchema.shape>) {
        expect({ key, default: documented.get(key) }).toEqual({ key, default: documentedDefault(key) });
      }
    });
  });

  it('applies the defaults and freezes the result, nested parts included', () => {
    const config = loadConfig(REQUIRED);
    expect(config).toMatchObject({ port: 4000, host: '0.0.0.0', env: 'production', shutdownDelayMs: 5000, drainTimeoutMs: 15000 });
    expect(config.tracing).toEqual({ endpoint: undefined, serviceName: 'tablegraph' });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.tracing)).toBe(true);
    expect(Object.isFrozen(config.pos)).toBe(true);
  });

  it('reads the operations settings', () => {
    const config = loadConfig({
      ...REQUIRED,
      SHUTDOWN_DELAY_MS: '0',
      DRAIN_TIMEOUT_MS: '2500',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_SERVICE_NAME: 'tablegraph-eu',
    });
    expect(config).toMatchObject({ shutdownDelayMs: 0, drainTimeoutMs: 2500, tracing: { endpoint: 'http://collector:4318', serviceName: 'tablegraph-eu' } });
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ ...REQUIRED, PORT: '', OTEL_EXPORTER_OTLP_ENDPOINT: '' })).toMatchObject({ port: 4000, tracing: { endpoint: undefined } });
  });

  it('reports every bad or missing setting at once, each by its variable name', () => {
    const problems = thrownBy(ConfigError, () => loadConfig({ PORT: 'abc', DRAIN_TIMEOUT_MS: '0', LOG_LEVEL: 'loud', OTEL_EXPORTER_OTLP_ENDPOINT: 'ftp://collector', NODE_ENV: 'staging' })).problems;
    const named = problems.map((p) => p.split(':')[0]);
    expect(named.sort()).toEqual(['DRAIN_TIMEOUT_MS', 'LOG_LEVEL', 'NODE_ENV', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'PORT', 'POS_BASE_URL', 'RESERVATION_BASE_URL']);
    expect(problems).toContain('RESERVATION_BASE_URL: is required');
    expect(problems).toContain('PORT: must be a number');
  });

  it('says what is wrong with a value without repeating it (it may hold a secret)', () => {
    const problems = thrownBy(ConfigError, () => loadConfig({ ...REQUIRED, OTEL_EXPORTER_OTLP_ENDPOINT: 'ftp://user:s3cret-pass@collector', SHUTDOWN_DELAY_MS: '1.5' })).problems;
    expect(problems).toEqual(['SHUTDOWN_DELAY_MS: must be an integer', 'OTEL_EXPORTER_OTLP_ENDPOINT: must be an http(s) URL']);
  });

  it('reads the breaker and connection settings', () => {
    const config = loadConfig({
      ...REQUIRED,
      BREAKER_WINDOW_MS: '5000',
      BREAKER_HALF_OPEN_PROBES: '3',
      BREAKER_CONSECUTIVE_FAILURES: '7',
      SERVER_HEADERS_TIMEOUT_MS: '2000',
      SERVER_MAX_CONNECTIONS: '100',
    });
    expect(config.pos.resilience.breaker).toMatchObject({ windowMs: 5000, halfOpenProbes: 3, consecutiveFailures: 7, minimumCalls: 50, failureRatio: 0.5 });
    expect(config.connectionLimits).toEqual({
      headersTimeoutMs: 2000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5000,
      maxRequestsPerSocket: 1000,
      maxHeaderBytes: 16_384,
      maxConnections: 100,
    });
    expect(config.warnings).toEqual([]);
  });

  it('accepts the retired BREAKER_WINDOW_SIZE with a warning that names its replacement', () => {
    expect(loadConfig({ ...REQUIRED, BREAKER_WINDOW_SIZE: '20' }).warnings).toEqual([expect.stringMatching(/^BREAKER_WINDOW_SIZE has no effect.*BREAKER_WINDOW_MS$/)]);
  });

  describe('shared state (CONTRACT.md, Process)', () => {
    it('requires REDIS_URL in production, naming it and the SINGLE_REPLICA=true opt-out', () => {
      expect(thrownBy(ConfigError, () => loadConfig(UPSTREAMS)).problems).toEqual([expect.stringMatching(REDIS_REQUIRED)]);
      expect(thrownBy(ConfigError, () => loadConfig({ ...UPSTREAMS, NODE_ENV: 'production', SINGLE_REPLICA: 'false' })).problems).toEqual([expect.stringMatching(REDIS_REQUIRED)]);
    });

    it('starts production with REDIS_URL, or without it when SINGLE_REPLICA=true keeps everything in memory', () => {
      expect(loadConfig({ ...UPSTREAMS, REDIS_URL: 'redis://:pw@redis:6379/0' })).toMatchObject({ env: 'production', redisUrl: 'redis://:pw@redis:6379/0' });
      expect(loadConfig({ ...UPSTREAMS, SINGLE_REPLICA: 'true' })).toMatchObject({ env: 'production', redisUrl: undefined });
    });

    it('starts production behind Sentinel, which wins over REDIS_URL: that only lends its password and database', () => {
      const sentinel = { REDIS_SENTINELS: 'sentinel-a:26379, sentinel-b:26380', REDIS_SENTINEL_NAME: 'tablegraph' };
      expect(loadConfig({ ...UPSTREAMS, ...sentinel })).toMatchObject({
        env: 'production',
        redisSentinel: { sentinels: [{ host: 'sentinel-a', port: 26379 }, { host: 'sentinel-b', port: 26380 }], name: 'tablegraph' },
        redisWaitTimeoutMs: 500,
      });
      expect(loadConfig({ ...UPSTREAMS, ...sentinel, REDIS_URL: 'redis://:pw@ignored:6379/2' })).toMatchObject({ redisUrl: 'redis://:pw@ignored:6379/2', redisSentinel: { name: 'tablegraph' } });
    });

    it('refuses half a Sentinel setting and a malformed one, naming the setting', () => {
      expect(thrownBy(ConfigError, () => loadConfig({ ...REQUIRED, REDIS_SENTINELS: 'sentinel:26379' })).problems).toEqual([expect.stringMatching(/^REDIS_SENTINEL_NAME: is required when REDIS_SENTINELS is set/)]);
      expect(thrownBy(ConfigError, () => loadConfig({ ...REQUIRED, REDIS_SENTINEL_NAME: 'tablegraph' })).problems).toEqual([expect.stringMatching(/^REDIS_SENTINELS: is required when REDIS_SENTINEL_NAME is set/)]);
      expect(thrownBy(ConfigError, () => loadConfig({ ...REQUIRED, REDIS_SENTINELS: 'sentinel', REDIS_SENTINEL_NAME: 'tablegraph' })).problems).toEqual([
        expect.stringMatching(/^REDIS_SENTINELS: must be comma-separated host:port pairs/),
      ]);
      expect(thrownBy(ConfigError, () => loadConfig({ ...REQUIRED, REDIS_WAIT_TIMEOUT_MS: '60000' })).problems).toEqual([expect.stringMatching(/^REDIS_WAIT_TIMEOUT_MS: /)]);
    });

    it('needs no Redis outside production (npm run dev, tests)', () => {
      expect(loadConfig({ ...UPSTREAMS, NODE_ENV: 'development' }).redisUrl).toBeUndefined();
      expect(loadConfig({ ...UPSTREAMS, NODE_ENV: 'test' }).redisUrl).toBeUndefined();
    });

    it('names it with every other missing setting, and only once when SINGLE_REPLICA itself is wrong', () => {
      const problems = thrownBy(ConfigError, () => loadConfig({ PORT: 'abc' })).problems;
      expect(problems.map((p) => p.split(':')[0]).sort()).toEqual(['PORT', 'POS_BASE_URL', 'REDIS_URL', 'RESERVATION_BASE_URL']);
      expect(thrownBy(ConfigError, () => loadConfig({ ...UPSTREAMS, SINGLE_REPLICA: 'yes' })).problems).toEqual([expect.stringMatching(/^SINGLE_REPLICA: /)]);
    });
  });

  it('refuses a headers timeout longer than the request timeout', () => {
    expect(thrownBy(ConfigError, () => loadConfig({ ...REQUIRED, SERVER_HEADERS_TIMEOUT_MS: '40000' })).problems).toEqual(['SERVER_HEADERS_TIMEOUT_MS: must not exceed SERVER_REQUEST_TIMEOUT_MS (30000)']);
  });

  describe('the real process (npm start)', () => {
    it('stops at once with exit code 1 and one message naming every missing setting', async () => {
      const gateway = spawnGateway('src/main.ts', {});
      expect(await gateway.exited).toBe(1);
      const message = gateway.stderr();
      expect(message).toMatch(/^Invalid configuration:/);
      expect(message).toContain('RESERVATION_BASE_URL: is required');
      expect(message).toContain('POS_BASE_URL: is required');
      expect(message).toMatch(/^ {2}- REDIS_URL: is required when NODE_ENV is production/m);
      expect(gateway.stdout()).not.toContain('gateway listening');
    });

    it('stops a production start without REDIS_URL at once, naming it and SINGLE_REPLICA=true', async () => {
      const gateway = spawnGateway('src/main.ts', { ...UPSTREAMS, NODE_ENV: 'production', PORT: '0', HOST: '127.0.0.1' });
      expect(await gateway.exited).toBe(1);
      expect(gateway.stderr()).toMatch(/^Invalid configuration:\n {2}- REDIS_URL: is required when NODE_ENV is production.*SINGLE_REPLICA=true/);
      expect(gateway.stderr().trim().split('\n')).toHaveLength(2);
      expect(gateway.stdout()).not.toContain('gateway listening');
    });

    it('names invalid values too, in the same message', async () => {
      const gateway = spawnGateway('src/main.ts', { ...REQUIRED, PORT: '70000', DRAIN_TIMEOUT_MS: 'soon', TRUSTED_DOCUMENTS_MODE: 'all' });
      expect(await gateway.exited).toBe(1);
      expect(gateway.stderr()).toContain('PORT: Too big');
      expect(gateway.stderr()).toContain('TRUSTED_DOCUMENTS_MODE: Invalid option');
      expect(gateway.stderr()).toContain('DRAIN_TIMEOUT_MS: must be a number');
      expect(gateway.stderr()).not.toContain('RESERVATION_BASE_URL');
    });
  });
});
