import { buildSync, type BuildOptions } from 'esbuild';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/**
 * Packages the gateway requires only when a setting asks for them (REDIS_URL): left out of the bundle and loaded
 * from node_modules then, so the bundle's source, which the process keeps, is not carried by every gateway that
 * does not use them. Not the tracing SDK: it would load node_modules' copy of @opentelemetry/api, whose tracer
 * provider the bundle's copy never sees (its tracers stay no-ops; test/process/compileCache.test.ts).
 */
const LOADED_ON_DEMAND = ['ioredis'];

/**
 * `npm run bundle`'s esbuild options: src/main.ts and everything it requires in one CommonJS file, written as one
 * function expression of the module wrapper's parameters, which src/process/compileCache.ts compiles as it is (no
 * copy of the source to wrap it) and runs as the main module. ASCII only (esbuild's default), so V8 holds the source
 * in one byte per character.
 */
export function bundleOptions(outfile: string): BuildOptions {
  return {
    entryPoints: [join(ROOT, 'src', 'main.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    sourcemap: true,
    external: LOADED_ON_DEMAND,
    banner: { js: '(function (exports, require, module, __filename, __dirname) {' },
    footer: { js: '})' },
    // Licence comments go to gateway.js.LEGAL.txt: some hold non-ASCII names, which would make V8 hold the whole
    // source two bytes per character.
    legalComments: 'external',
    // `import()` (the OTLP exporter's, of node:http) written as `require`: a script compiled by node:vm has no
    // module loader for `import()`, and Node 20 loses the one vm offers when the script comes from a code cache.
    supported: { 'dynamic-import': false },
    // Without comments and indentation (names kept, for stack traces and profiles): less source for V8 to hold, and
    // none of the comments' non-ASCII characters.
    minifyWhitespace: true,
    // Class and function names as written: errors are named by their constructor (Apollo's, pino's `err.type`).
    keepNames: true,
    logLevel: 'warning',
  };
}

if (require.main === module) buildSync(bundleOptions(join(ROOT, 'dist', 'gateway.js')));
