import pino, { type Logger } from 'pino';
import { ALL_CREDENTIAL_HEADERS, CREDENTIAL_HEADERS } from './credentials';
import { activeTraceIds } from './observability/tracing';

/**
 * Header names whose values never reach a log line: every credential header, lower-cased as Node receives them
 * and spelled as the upstream documents spell them (as the clients send them upstream), and cookies.
 */
const SECRET_HEADERS = [...new Set([...ALL_CREDENTIAL_HEADERS, ...Object.values(CREDENTIAL_HEADERS).flat(), 'cookie', 'set-cookie'])];

/** Paths whose values never reach a log line: the secret headers, wherever headers are logged. */
export const REDACT_PATHS: string[] = SECRET_HEADERS.flatMap((h) => [`req.headers["${h}"]`, `headers["${h}"]`, `*.headers["${h}"]`]);

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
  return options.destination ? pino(settings, options.destination) : pino(settings);
}

export type { Logger };
