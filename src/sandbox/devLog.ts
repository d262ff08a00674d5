import { prettyFactory } from 'pino-pretty';
import { z } from 'zod';

/**
 * The log of `npm run dev`, for a person at a terminal: each `graphql request` line as one line,
 * `DayView 200 48 ms · 31 upstream (1 reservation, 30 pos)`, with its upstream calls one per line only at
 * LOG_LEVEL=debug (a day view makes 31; pretty-printed whole they were some 250 lines). Every other line is
 * pino-pretty's. Production writes JSON and never passes here (src/logger.ts).
 */
export function devLogDestination(options: { level: string; write?: (text: string) => void; colorize?: boolean }): { write(line: string): void } {
  const out = options.write ?? ((text: string) => void process.stdout.write(text));
  const pretty = prettyFactory({ colorize: options.colorize ?? process.stdout.isTTY === true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service' });
  const detail = options.level === 'debug' || options.level === 'trace';
  return {
    write(line: string) {
      out(pretty(requestLine(line, detail) ?? line));
    },
  };
}

const UpstreamCall = z.object({
  service: z.string(),
  method: z.string().optional(),
  route: z.string().optional(),
  status: z.number().nullable().optional(),
  failure: z.string().optional(),
  durationMs: z.number().optional(),
  source: z.string().optional(),
});

/** The fields of a request log line that the short form shows (src/http/graphqlRoute.ts writes them). */
const RequestLine = z.object({
  level: z.number(),
  time: z.number(),
  msg: z.literal('graphql request'),
  requestId: z.string().optional(),
  operationName: z.string().nullable().optional(),
  operations: z.array(z.object({ operationName: z.string().nullable() })).optional(),
  httpStatus: z.number().optional(),
  durationMs: z.number().optional(),
  outcome: z.string().optional(),
  errorCodes: z.array(z.string()).optional(),
  client: z.string().optional(),
  transport: z.string().optional(),
  upstreamCalls: z.array(UpstreamCall).default([]),
});

/** A `graphql request` JSON line rewritten to its short form (still a pino line, for pino-pretty); any other line: undefined. */
export function requestLine(json: string, detail: boolean): string | undefined {
  if (!json.includes('"graphql request"')) return undefined;
  let parsed: z.infer<typeof RequestLine>;
  try {
    const read = RequestLine.safeParse(JSON.parse(json));
    if (!read.success) return undefined;
    parsed = read.data;
  } catch {
    return undefined;
  }
  const { level, time, requestId } = parsed;
  const msg = [summary(parsed), ...(detail ? parsed.upstreamCalls.map((c) => `    ${callLine(c)}`) : [])].join('\n');
  return JSON.stringify({ level, time, msg, ...(detail && requestId ? { requestId } : {}) });
}

/** `DayView 200 48 ms · 31 upstream (1 reservation, 30 pos), 30 cache · partial UPSTREAM_ERROR · client web`. */
export function summary(line: z.infer<typeof RequestLine>): string {
  const name = line.operations ? `batch of ${line.operations.length}` : (line.operationName ?? '(no operation)');
  const head = [line.transport && line.transport !== 'http' ? `${line.transport}` : undefined, name, line.httpStatus, line.durationMs === undefined ? undefined : `${Math.round(line.durationMs)} ms`]
    .filter((part) => part !== undefined)
    .join(' ');
  const parts = [head, upstream(line.upstreamCalls)];
  if (line.outcome && line.outcome !== 'success') parts.push([line.outcome, ...(line.errorCodes ?? [])].join(' '));
  if (line.client && line.client !== 'anonymous') parts.push(`client ${line.client}`);
  return parts.join(' · ');
}

/** Calls made by the request, by service; reads another request made for it (joined) or kept (cache) after them. */
function upstream(calls: ReadonlyArray<z.infer<typeof UpstreamCall>>): string {
  const made = calls.filter((c) => c.source === undefined || c.source === 'upstream');
  const perService = countBy(made.map((c) => c.service));
  const shared = countBy(calls.filter((c) => !made.includes(c)).map((c) => c.source ?? ''));
  const services = perService.length > 0 ? ` (${perService.map(([service, n]) => `${n} ${service}`).join(', ')})` : '';
  return [`${made.length} upstream${services}`, ...shared.map(([source, n]) => `${n} ${source}`)].join(', ');
}

function callLine(c: z.infer<typeof UpstreamCall>): string {
  const duration = c.durationMs === undefined ? '' : `${c.durationMs} ms`;
  return [c.service, c.method, c.route, c.status ?? 'no answer', c.failure, duration, c.source && c.source !== 'upstream' ? c.source : undefined].filter(Boolean).join(' ');
}

function countBy(values: string[]): Array<[string, number]> {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts];
}
