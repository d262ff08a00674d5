import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { loadConfig } from '../src/config';
import { createLogger } from '../src/logger';
import { createGateway } from '../src/server';
import { benchNow, scenarioRequest } from './scenarios';
import { startBenchUpstreams } from './upstreams';

/**
 * `npm run bench:heap`: whether the gateway keeps anything per request. S1 requests, 16 at a time, through a gateway
 * in this process; after each batch a full collection and the live heap. A leak grows with the count; V8's garbage
 * (what makes the peak RSS of docs/performance.md) does not survive the collection.
 */
async function main(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc');
  const upstreams = await startBenchUpstreams({ now: benchNow() });
  const config = loadConfig({ NODE_ENV: 'production', LOG_LEVEL: 'silent', RESERVATION_BASE_URL: upstreams.fast.reservationUrl, POS_BASE_URL: upstreams.fast.posUrl });
  const gateway = createGateway({ config, logger: createLogger({ level: 'silent' }) });
  await gateway.start();
  await new Promise<void>((resolve) => gateway.server.listen(0, '127.0.0.1', resolve));
  const pool = new Pool(`http://127.0.0.1:${(gateway.server.address() as AddressInfo).port}`, { connections: 16 });
  const request = scenarioRequest('S1', upstreams.sandbox.state);
  const liveMiB = () => {
    gc();
    gc();
    return (process.memoryUsage().heapUsed / 2 ** 20).toFixed(1);
  };
  try {
    process.stdout.write(`live heap after start: ${liveMiB()} MiB\n`);
    let sent = 0;
    for (const total of [2000, 4000, 8000, 16000]) {
      for (; sent < total; sent += 16) {
        await Promise.all(Array.from({ length: 16 }, async () => (await pool.request({ method: 'POST', path: '/graphql', headers: request.headers, body: request.body })).body.text()));
      }
      process.stdout.write(`live heap after ${total} requests: ${liveMiB()} MiB\n`);
    }
  } finally {
    await pool.close();
    await gateway.stop();
    await upstreams.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:heap failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
