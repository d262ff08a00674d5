import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { runBundle } from './process/compileCache';

/**
 * `npm start` and the image: the gateway (src/main.ts) as the one file `npm run build` bundles, `dist/gateway.js`,
 * compiled with its V8 code cache (src/process/compileCache.ts). `--write-compile-cache` is the build's last step:
 * it starts the gateway on a free port with placeholder upstreams (never called), writes the cache once ready, and
 * exits.
 */
const bundle = join(__dirname, '..', 'gateway.js');
if (!existsSync(bundle)) {
  process.stderr.write(`${bundle} is missing: npm run build writes it\n`);
  process.exit(1);
}
const writeOnly = process.argv.includes('--write-compile-cache');
if (writeOnly) {
  process.env.PORT = '0';
  process.env.HOST = '127.0.0.1';
  process.env.LOG_LEVEL ??= 'warn';
  process.env.RESERVATION_BASE_URL ??= 'http://127.0.0.1:9';
  process.env.POS_BASE_URL ??= 'http://127.0.0.1:9';
}
runBundle(bundle, module, { writeOnly });
