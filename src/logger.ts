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
  // Buffered: one write per 4 KiB of lines instead of one per line (the log line was 12 % of a request's CPU,
  // most of it the write). pino flushes the buffer synchronously when the process exits (`stopped`, a crash), and
  // the timer writes what a quiet gateway has buffered; only a SIGKILL can lose the last FLUSH_INTERVAL_MS of lines.
  const destination = pino.destination({ dest: 1, sync: false, minLength: BUFFER_BYTES });
  setInterval(() => destination.flush(), FLUSH_INTERVAL_MS).unref();
  return pino(settings, destination);
}

/** Lines are written once this many bytes are buffered... */
const BUFFER_BYTES = 4096;
/** ...or this long after they were logged, whichever comes first. */
const FLUSH_INTERVAL_MS = 100;

export type { Logger };
