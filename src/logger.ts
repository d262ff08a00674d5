import pino, { type Logger } from 'pino';
import { ALL_CREDENTIAL_HEADERS, CREDENTIAL_HEADERS, OTHER_SPELLINGS } from './credentials';
import { activeTraceIds } from './observability/tracing';

/**
 * Header names whose values never reach a log line: every credential header under both of its spellings, lower-cased
 * as Node receives them and spelled as the upstream documents and the contract spell them, partners' API keys, and
 * cookies.
 */
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

/**
 * Paths whose values never reach a log line: the secret headers, wherever headers are logged. Spelled out rather
 * than `*.headers`: a wildcard path makes pino's redaction walk every key of every line, on every request.
 */
export const REDACT_PATHS: string[] = SECRET_HEADERS.flatMap((h) => HEADER_PARENTS.map((parent) => `${parent}headers["${h}"]`));

export interface LoggerOptions {
  level: string;
  /** Human-readable lines (npm run dev) instead of JSON. */
  pretty?: boolean;
  /** Where JSON lines go; standard output by default (tests capture them here). */
  destination?: pino.DestinationStream;
}

export function createLogger(options: LoggerOptions): Logger {
  const settings: pino.LoggerOptions = {
    level: options.level,
    base: { service: 'tablegraph' },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    // Inside a traced request, every line carries its trace and span ids, to jump from a log line to its trace.
    mixin: activeTraceIds,
    ...(options.pretty ? { transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service' } } } : {}),
  };
  if (options.destination) return pino(settings, options.destination);
  if (options.pretty) return pino(settings);
  // Synchronous writes to standard output, not pino's asynchronous default: at exit a line still being written could
  // land after the final flush (a drained request's line after `stopped`), and a crash would lose what was buffered.
  return pino(settings, pino.destination({ dest: 1, sync: true }));
}

export type { Logger };
