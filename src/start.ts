import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { bundleCacheAccepted, runBundle } from './process/compileCache';

/**
 * `npm start` and the image: the gateway (src/main.ts) as the one file `npm run build` bundles, `dist/gateway.js`,
 * compiled with its V8 code cache (src/process/compileCache.ts). Two steps of the build use it too:
 * `--write-compile-cache` starts one gateway process on a free port with placeholder upstreams (never called),
 * writes the cache once ready, and exits; `--check-compile-cache` only compiles the bundle, as a fresh start does,
 * and says whether V8 took the cache.
 */
const bundle = join(__dirname, '..', 'gateway.js');
if (!existsSync(bundle)) {
  process.stderr.write(`${bundle} is missing: npm run build writes it\n`);
  process.exit(1);
}
if (process.argv.includes('--check-compile-cache')) {
  // A warning, not a failure: the gateway runs without its cache, only starts more slowly.
  process.stdout.write(
    bundleCacheAccepted(bundle) ? `compile cache: a fresh start of ${bundle} uses it\n` : `warning: V8 refuses the compile cache of ${bundle}; starts compile the bundle from its source\n`,
  );
} else {
  const writeOnly = process.argv.includes('--write-compile-cache');
  if (writeOnly) {
    process.env.PORT = '0';
    process.env.HOST = '127.0.0.1';
    // One process: a WORKERS > 1 primary serves nothing, and its workers run with other V8 flags.
    process.env.WORKERS = '1';
    process.env.LOG_LEVEL ??= 'warn';
    process.env.RESERVATION_BASE_URL ??= 'http://127.0.0.1:9';
    process.env.POS_BASE_URL ??= 'http://127.0.0.1:9';
    // A build step, not a deployment: no Redis to share state with.
    process.env.SINGLE_REPLICA ??= 'true';
  }
  runBundle(bundle, module, { writeOnly });
}
