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
 * readable, src/sandbox/devLog.ts).
 */
export function createLogger(options: { level: string; destination?: pino.DestinationStream }): Logger {
  const settings: pino.LoggerOptions = {
    level: options.level,
    base: { service: 'tablegraph' },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    // Inside a traced request, every line carries its trace and span ids.
    mixin: activeTraceIds,
  };
  if (options.destination) return pino(settings, options.destination);
  return pino(settings, linesOfOneTurn());
}

/**
 * Standard output, written synchronously once per turn of the event loop: the lines logged while the loop handles
 * one batch of I/O (under load, several requests' lines) go out in one `write(2)` as it turns, before it waits for
 * more, instead of one each (the log line was 12 % of a request's CPU, most of it the write). A line is written
 * within the turn that logged it, never left waiting for traffic; the exit flush writes what a crash leaves.
 */
function linesOfOneTurn(): pino.DestinationStream & { flush(done?: () => void): void } {
  if (standardOutput) return standardOutput;
  const out = pino.destination({ dest: 1, sync: true, minLength: BUFFER_BYTES });
  let scheduled = false;
  const flush = (done?: () => void) => {
    scheduled = false;
    out.flushSync();
    done?.();
  };
  process.on('exit', () => out.flushSync());
  standardOutput = {
    write(line: string) {
      out.write(line);
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    flush,
  };
  return standardOutput;
}

/** One per process: every logger writing to standard output shares its buffer, so lines keep their order. */
let standardOutput: ReturnType<typeof linesOfOneTurn> | undefined;

/** A turn's lines beyond this many bytes are written at once (under sonic-boom's 16 KiB write size). */
const BUFFER_BYTES = 8192;

export type { Logger };
