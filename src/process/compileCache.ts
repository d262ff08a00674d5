import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { Script } from 'node:vm';
import { messageOf } from '../errors/errorFields';

/**
 * Start to ready (issue 14): `npm start` runs the gateway as one file, `dist/gateway.js` (esbuild's bundle of
 * src/main.ts, `npm run build`, tools/bundle/main.ts), compiled with a V8 code cache. Loading the 1,000 modules one
 * by one spent most of the start resolving paths, reading files and compiling; one file has nothing to resolve, and
 * its cache lets V8 skip parsing and compiling what the previous start compiled. Node 22's `module.enableCompileCache` caches module by
 * module; this works on Node 20 too.
 *
 * The cache file (`<bundle>.v8cache`) starts with a key: the SHA-256 of the bundle's bytes, Node's version and the
 * architecture, because V8 checks only a cache's length of source and its own flags. A cache with another key is
 * not offered to V8; one V8 refuses (other flags, such as the heap size given to WORKERS' processes) is left as it
 * is for the starts it fits. `npm run build` writes it (`--write-compile-cache`: start, write once ready, exit) and
 * checks that a fresh start's V8 takes it (`--check-compile-cache`), so the image carries it; a start that finds
 * none writes one shortly after it is ready, when it can write there.
 */
const KEY_BYTES = 32;

/** How long the build's cache-writing start may take to be ready before the build fails. */
const WRITE_TIMEOUT_MS = 60_000;

/** How the gateway's code, running inside the bundle, reaches the loader that compiled it. */
const HOOK = Symbol.for('tablegraph.compileCache');

export interface CompileCacheHook {
  /** Whether V8 took the cache, so the bundle was not compiled from its source. */
  readonly cacheAccepted: boolean;
  /** This process only writes the cache (the build's last step): it exits once the cache is written. */
  readonly writeOnly: boolean;
  /**
   * Writes the cache of everything compiled so far when the file held none for this bundle and Node. The V8 flags
   * the process set while running (`resetFlags`: `[flag to set while writing, flag to set after]`) are put back to
   * their defaults while writing, since V8 refuses a cache made under other flags than the next start's.
   */
  save(resetFlags?: readonly [string, string]): CacheSave;
}

/**
 * What `save` did: `written`; `present`, the file already held what V8 took; `kept`, V8 refused the file's cache for
 * this bundle (other flags) and a serving process leaves it to the starts it fits; `failed`, with the error.
 */
export type CacheSave = { outcome: 'written' | 'present' | 'kept'; path: string } | { outcome: 'failed'; path: string; error: string };

/**
 * Runs the bundle as the process's main module (`entry`, the loader's own module, so the bundle's
 * `require.main === module` holds), compiled with its code cache when there is one for it.
 */
export function runBundle(bundlePath: string, entry: NodeJS.Module, options: { writeOnly?: boolean } = {}): void {
  const { script, key, cachePath, matching, cacheAccepted } = compileBundle(bundlePath);
  let saved = false;
  const hook: CompileCacheHook = {
    cacheAccepted,
    writeOnly: options.writeOnly ?? false,
    save(resetFlags) {
      saved = true;
      // The build's run writes over a cache V8 refused; a serving process leaves it to the starts it fits.
      if (matching && cacheAccepted) return { outcome: 'present', path: cachePath };
      if (matching && !options.writeOnly) return { outcome: 'kept', path: cachePath };
      const partial = `${cachePath}.${randomBytes(6).toString('hex')}`;
      try {
        if (resetFlags) setFlagsFromString(resetFlags[0]);
        let data: Buffer;
        try {
          data = script.createCachedData();
        } finally {
          if (resetFlags) setFlagsFromString(resetFlags[1]);
        }
        writeFileSync(partial, Buffer.concat([key, data]), { flag: 'wx' });
        renameSync(partial, cachePath);
        return { outcome: 'written', path: cachePath };
      } catch (err) {
        rmSync(partial, { force: true });
        return { outcome: 'failed', path: cachePath, error: messageOf(err) };
      }
    },
  };
  (globalThis as Record<symbol, unknown>)[HOOK] = hook;
  if (options.writeOnly) {
    // A bundle that never reaches readiness (or is not the gateway) must not pass the build with no cache.
    process.once('exit', (code) => {
      if (saved || code !== 0) return;
      process.stderr.write(`${bundlePath} exited before it was ready and wrote its compile cache\n`);
      process.exitCode = 1;
    });
    setTimeout(() => {
      process.stderr.write(`${bundlePath} was not ready within ${WRITE_TIMEOUT_MS / 1000} s: no compile cache written\n`);
      process.exit(1);
    }, WRITE_TIMEOUT_MS).unref();
  }

  const run = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: NodeJS.Module, filename: string, dirname: string) => void;
  run.call(entry.exports, entry.exports, createRequire(bundlePath), entry, bundlePath, dirname(bundlePath));
}

/** Whether V8 takes the bundle's cache in a process whose flags are a fresh start's (the build's check). */
export function bundleCacheAccepted(bundlePath: string): boolean {
  return compileBundle(bundlePath).cacheAccepted;
}

interface CompiledBundle {
  script: Script;
  key: Buffer;
  cachePath: string;
  /** The cache file holds a cache for this bundle and Node. */
  matching: boolean;
  /** V8 took it. */
  cacheAccepted: boolean;
}

function compileBundle(bundlePath: string): CompiledBundle {
  const source = readFileSync(bundlePath);
  const key = createHash('sha256').update(source).update(`\0${process.version}\0${process.arch}`).digest();
  const cachePath = `${bundlePath}.v8cache`;
  let stored: Buffer | undefined;
  try {
    stored = readFileSync(cachePath);
  } catch {
    // none yet: this start compiles from the source and writes one once ready
  }
  const matching = stored !== undefined && stored.length > KEY_BYTES && stored.subarray(0, KEY_BYTES).equals(key);
  // The bundle is one function expression of the module wrapper's parameters (tools/bundle/main.ts).
  const script = new Script(source.toString('utf8'), { filename: bundlePath, cachedData: matching ? stored!.subarray(KEY_BYTES) : undefined });
  return { script, key, cachePath, matching, cacheAccepted: matching && !script.cachedDataRejected };
}

/** The loader's hook when the gateway runs inside a bundle that `runBundle` started; undefined otherwise. */
export function compileCacheHook(): CompileCacheHook | undefined {
  return (globalThis as Record<symbol, CompileCacheHook | undefined>)[HOOK];
}
