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
 * (what makes the peak RSS of docs/performance.md) does not survive the collection. Then 1,000 distinct documents:
 * compiled code is what would grow there, and JIT_MAX_DOCUMENTS bounds it.
 */
async function main(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc');
  const upstreams = await startBenchUpstreams({ now: benchNow() });
  // JIT_MIN_USES and JIT_MAX_DOCUMENTS from the environment, to compare.
  const config = loadConfig({ JIT_MIN_USES: process.env.JIT_MIN_USES, JIT_MAX_DOCUMENTS: process.env.JIT_MAX_DOCUMENTS, NODE_ENV: 'production', SINGLE_REPLICA: 'true', LOG_LEVEL: 'silent', RESERVATION_BASE_URL: upstreams.fast.reservationUrl, POS_BASE_URL: upstreams.fast.posUrl });
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
    // Ever-new documents (an alias that changes), each sent 3 times: enough uses to be compiled, so only
    // JIT_MAX_DOCUMENTS (50) bounds what V8 keeps of the compiled code.
    const { query, operationName } = JSON.parse(request.body) as { query: string; operationName: string; variables: unknown };
    for (let n = 1; n <= 1000; n++) {
      const body = JSON.stringify({ ...JSON.parse(request.body), query: query.replace('check(id: $id)', `c${n}: check(id: $id)`), operationName });
      for (let i = 0; i < 3; i++) await (await pool.request({ method: 'POST', path: '/graphql', headers: request.headers, body })).body.text();
      if (n % 250 === 0) process.stdout.write(`live heap after ${n} distinct documents (3 runs each): ${liveMiB()} MiB\n`);
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
