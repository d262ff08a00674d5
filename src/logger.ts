import { writeSync } from 'node:fs';
import pino, { type Logger } from 'pino';
import { ALL_CREDENTIAL_HEADERS, CREDENTIAL_HEADERS, OTHER_SPELLINGS } from './credentials';
import { activeTraceIds } from './observability/tracing';

/** Every credential header under both spellings, lower-cased as Node receives them and as documented, API keys, cookies. */
const SECRET_HEADERS = [
  ...new Set([...ALL_CREDENTIAL_HEADERS, ...Object.values(CREDENTIAL_HEADERS).flat(), ...Object.values(OTHER_SPELLINGS), 'x-api-key', 'X-Api-Key', 'cookie', 'set-cookie']),
];

/** The objects under which a log line may carry headers: a request, a response, an upstream call, an error. */
const HEADER_PARENTS = [
  '',
  'req.',
  'request.',
  'res.',
  'response.',
  'upstream.',
  'err.',
  'err.cause.',
  'err.cause.cause.',
  'err.originalError.',
  'err.request.',
  'err.response.',
  'error.',
  'error.cause.',
];

/** Spelled out rather than `*.headers`: a wildcard makes pino's redaction walk every key of every line. */
export const REDACT_PATHS: string[] = SECRET_HEADERS.flatMap((h) => HEADER_PARENTS.map((parent) => `${parent}headers["${h}"]`));

/**
 * `destination`: where the JSON lines go instead of standard output (`npm run dev` passes one that makes them
 * readable, src/sandbox/devLog.ts). `traceIds` (default true): lines carry the active span's ids.
 */
export function createLogger(options: { level: string; destination?: pino.DestinationStream; traceIds?: boolean }): Logger {
  const settings: pino.LoggerOptions = {
    level: options.level,
    base: { service: 'tablegraph' },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    // Inside a traced request, every line carries its trace and span ids; without tracing (`traceIds: false`) no line
    // has any, and none asks.
    ...(options.traceIds === false ? {} : { mixin: activeTraceIds }),
  };
  if (options.destination) return pino(settings, options.destination);
  return pino(settings, linesOfOneTurn());
}

/**
 * Standard output, written synchronously once per turn of the event loop: the lines logged while the loop handles
 * one batch of I/O (under load, several requests' lines) go out in one `write(2)` as it turns, before it waits for
 * more, instead of one each (the log line was 12 % of a request's CPU, most of it the write). A line is written
 * within the turn that logged it, never left waiting for traffic; the exit flush writes what a crash leaves.
 * Written by hand rather than through sonic-boom, whose `flushSync` ends every write with an `fsync`, which a pipe
 * refuses with an error built and thrown each time.
 */
function linesOfOneTurn(): pino.DestinationStream & { flush(done?: () => void): void } {
  if (standardOutput) return standardOutput;
  let pending: string[] = [];
  let bytes = 0;
  let scheduled = false;
  // Set when standard output is gone (its reader closed the pipe): lines are dropped, never thrown at the logger's caller.
  let closed = false;
  const flush = (done?: () => void) => {
    scheduled = false;
    if (pending.length > 0) {
      const text = pending.length === 1 ? pending[0] : pending.join('');
      pending = [];
      bytes = 0;
      if (!closed) closed = !writeAll(1, Buffer.from(text));
    }
    done?.();
  };
  process.on('exit', () => flush());
  standardOutput = {
    write(line: string) {
      if (closed) return;
      pending.push(line);
      bytes += line.length;
      if (bytes >= BUFFER_BYTES) flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    flush,
  };
  return standardOutput;
}

/**
 * Every byte of `buffer` to `fd`, waiting while a non-blocking pipe is full (as sonic-boom does) rather than dropping
 * lines; false when the descriptor refuses them for good (EPIPE: nobody reads it any more).
 */
function writeAll(fd: number, buffer: Buffer): boolean {
  let offset = 0;
  while (offset < buffer.length) {
    try {
      offset += writeSync(fd, buffer, offset);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'EAGAIN' && code !== 'EBUSY') return false;
      Atomics.wait(PAUSE, 0, 0, BUSY_WRITE_PAUSE_MS);
    }
  }
  return true;
}

/** One per process: every logger writing to standard output shares its buffer, so lines keep their order. */
let standardOutput: ReturnType<typeof linesOfOneTurn> | undefined;

/** A turn's lines beyond this many characters are written at once. */
const BUFFER_BYTES = 16384;
/** How long a write waits for a full pipe to drain before it tries again. */
const BUSY_WRITE_PAUSE_MS = 10;
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

export type { Logger };
