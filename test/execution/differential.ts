import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256Hex } from '../../src/sha256';
import type { Stack } from '../support/stack';

/** What the differential tests of the two executors share: the clients file, the log line and the metrics to compare. */

/**
 * A partner whose cost maximum (15) most operations exceed. Its request rate is set far above what the tests send: a
 * partner's default (10 per 2 s) ran out in one gateway and not the other when a window began a moment apart in the
 * two processes, which no executor decides.
 */
export const FRUGAL_KEY = 'frugal-compiled-path-key';
/** A first-party app bound to trusted documents: ids are served, document text is refused. */
export const TRUSTED_ONLY_CLIENT = 'trusted-app';

/** Headers of a caller the clients file does not name: the anonymous policy applies. */
export const ANONYMOUS: Record<string, string> = { 'apollographql-client-name': 'not-in-the-clients-file' };

/** Writes the clients file of both gateways into `dir`; gives its path. `trustedOnly` is the policy of TRUSTED_ONLY_CLIENT. */
export function clientsFile(dir: string, trustedOnly = true): string {
  const path = join(dir, 'clients.yaml');
  writeFileSync(
    path,
    `clients:
  - name: frugal
    audience: partner
    keySha256: ${sha256Hex(FRUGAL_KEY)}
    policy: { maxCost: 15, requestsPerSecond: 1000, burst: 1000 }
  - name: web
    audience: first-party
    policy: { requestsPerSecond: 1000, burst: 1000, trustedDocumentsOnly: false }
  - name: ${TRUSTED_ONLY_CLIENT}
    audience: first-party
    policy: { requestsPerSecond: 1000, burst: 1000, trustedDocumentsOnly: ${trustedOnly} }
anonymous: { requestsPerSecond: 1000, burst: 1000 }
`,
  );
  return path;
}

/**
 * The `graphql request` log line of `requestId`, without what differs from run to run (timings, process, host, each
 * upstream call's duration); the upstream calls sorted, since concurrent calls may end in either order.
 */
export function requestLog(stack: Stack, requestId: string): Record<string, unknown> {
  const quoted = JSON.stringify(requestId);
  // Read from the end and only lines naming the id: the log grows with every request of the file.
  for (let i = stack.logs.length - 1; i >= 0; i--) {
    if (!stack.logs[i].includes(quoted)) continue;
    const line = JSON.parse(stack.logs[i]) as Record<string, unknown>;
    if (line.requestId !== requestId || line.msg !== 'graphql request') continue;
    const { time: _t, durationMs: _d, pid: _p, hostname: _h, upstreamCalls, ...log } = line;
    const calls = (upstreamCalls as Array<Record<string, unknown>> | undefined)?.map(({ durationMs: _cd, ...call }) => JSON.stringify(call)).sort();
    return { ...log, upstreamCalls: calls };
  }
  throw new Error(`no log line for ${requestId}`);
}

/** Every metric of the gateway's own (tablegraph_), less what measures time: durations' buckets and sums. */
export async function countedMetrics(stack: Stack): Promise<string[]> {
  const text = await (await fetch(`${stack.url}/metrics`)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith('tablegraph_') && !/^tablegraph_\w+_duration_seconds_(bucket|sum)\{/.test(l))
    .sort();
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/**
 * `text` with every UUID not in `known` replaced by its rank of first appearance (`<uuid 1>`, …): the services draw a
 * new record's id at random, so two gateways' answers differ there and only there, and the same new id must still
 * stand in the same places.
 */
export function maskNewIds(text: string, known: ReadonlySet<string>): string {
  const ranks = new Map<string, number>();
  return text.replace(UUID, (id) => {
    if (known.has(id)) return id;
    if (!ranks.has(id)) ranks.set(id, ranks.size + 1);
    return `<uuid ${ranks.get(id)}>`;
  });
}

/** Headers that differ by the clock alone. */
const TIMED_HEADERS = new Set(['date', 'connection', 'keep-alive']);

/**
 * Every response header but those of the clock; of `RateLimit`, which budgets it names, not what is left (that refills
 * with time), nor a rate refusal's `Retry-After` (the wait to the window's end: each gateway's window is its own
 * clock's); the length of a compressed body neither, as each gateway's answer holds other random ids.
 */
export function comparedHeaders(headers: Headers): Array<[string, string]> {
  const compressed = headers.has('content-encoding');
  const rateLimited = headers.has('ratelimit');
  return [...headers.entries()]
    .filter(([name]) => !TIMED_HEADERS.has(name) && !(compressed && name === 'content-length'))
    .map(([name, value]) => [name, name === 'ratelimit' ? value.replace(/;r=\d+;t=\d+/g, '') : rateLimited && name === 'retry-after' ? '<seconds>' : value]);
}

/** A rate refusal's text without its wait (`retry after 2 s`), which the window's clock decides, as Retry-After above. */
export function maskRetryWait(text: string): string {
  return text.replace(/retry after \d+ s/g, 'retry after <seconds> s');
}

/** The UUIDs in `text`. */
export const idsIn = (text: string): Set<string> => new Set(text.match(UUID) ?? []);

/** One gateway's answer to a request, as the differential tests compare it. */
export interface Answer {
  status: number;
  headers: Array<[string, string]>;
  text: string;
  log: Record<string, unknown>;
}
