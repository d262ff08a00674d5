import pino, { type Logger } from 'pino';
import { ALL_CREDENTIAL_HEADERS } from './credentials';

/** Paths whose values never reach a log line: every credential header, wherever headers are logged. */
export const REDACT_PATHS: string[] = ALL_CREDENTIAL_HEADERS.flatMap((h) => [
  `req.headers["${h}"]`,
  `headers["${h}"]`,
  `*.headers["${h}"]`,
]).concat(['req.headers.cookie', 'headers.cookie']);

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
    ...(options.pretty ? { transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service' } } } : {}),
  };
  return options.destination ? pino(settings, options.destination) : pino(settings);
}

export type { Logger };
