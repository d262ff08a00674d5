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
  // Synchronous writes: with pino's asynchronous default a line could land after `stopped`, or be lost in a crash.
  return pino(settings, pino.destination({ dest: 1, sync: true }));
}

export type { Logger };
