import { createServer, request, type ClientRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { cpuTimeMs, npmStartArgs, startTarget, stopProcess } from './processes';

/**
 * S5, live subscriptions (issue 23): SUBSCRIBERS screens over VENUES venues, 10 subscriptions per WebSocket, on one
 * gateway process (`npm run bench:live`, after `npm run build`'s tsc). It reports the memory each open subscription
 * costs, the upstream calls per second (one read per venue and view each interval, whatever the number of
 * subscribers), the time from an upstream change to the last subscriber's event, and the CPU of one read.
 */
const VENUES = Number(process.env.BENCH_LIVE_VENUES ?? 25);
const SUBSCRIBERS = Number(process.env.BENCH_LIVE_SUBSCRIBERS ?? 1000);
const POLL_SECONDS = Number(process.env.BENCH_LIVE_POLL_SECONDS ?? 1);
/** Shares of the subscribers over Server-Sent Events and over multipart HTTP (one HTTP connection each); the rest over WebSockets. */
const SSE_SHARE = Number(process.env.BENCH_LIVE_SSE_SHARE ?? 0.1);
const MULTIPART_SHARE = Number(process.env.BENCH_LIVE_MULTIPART_SHARE ?? 0.1);
/** How long the slow subscriber reads nothing while its view changes every interval. */
const SLOW_SECONDS = Number(process.env.BENCH_LIVE_SLOW_SECONDS ?? 60);
/** The slow subscriber's view: 100 reservations with a 4 KiB note each, about 420 KiB an event. */
const SLOW_VIEW = `subscription Slow($date: Date!) { reservations(date: $date, perPage: 100) { nodes { id status note } } }`;
const SLOW_NOTE_BYTES = 4096;
const PER_CONNECTION = 10;
const WINDOW_MS = 10_000;
/** Reservations of a venue's day, and the distinct checks among them: a read is 1 + CHECKS upstream calls. */
const RESERVATIONS = 10;
const CHECKS = 5;

const VIEW = `subscription LiveDay($date: Date!) { reservations(date: $date, perPage: 10) { nodes { id status guestCount check { id status } } } }`;

interface Upstream {
  url: string;
  calls: () => number;
  /** Every venue's reservations change status (a party seated). */
  change(): void;
  /** The slow subscriber's venue changes (its notes). */
  changeSlow(): void;
  close(): Promise<void>;
}

const uuid = (venue: number, n: number) => `00000000-0000-4000-8000-${String(venue).padStart(6, '0')}${String(n).padStart(6, '0')}`;

/** One server for both services: the list per venue (by token), and each check. */
async function startUpstream(): Promise<Upstream> {
  let calls = 0;
  let status = 'confirmed';
  let slowVersion = 0;
  const server: Server = createServer((req, res) => {
    calls += 1;
    const url = req.url ?? '';
    const checkId = /^\/checks\/([0-9a-f-]+)$/.exec(url)?.[1];
    const token = String(req.headers['reservation-access-token'] ?? '');
    const body = checkId ? check(checkId) : token === 'venue-slow' ? slowList() : list(token);
    const text = JSON.stringify(body);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
  });
  const list = (token: string) => {
    const venue = Number(token.replace('venue-', ''));
    const reservations = Array.from({ length: RESERVATIONS }, (_, n) => ({
      id: uuid(venue, n),
      type: 'reservation',
      status,
      date: '2026-11-28T19:30:00+03:00',
      guest_count: 2 + (n % 4),
      check: { id: uuid(venue, 1000 + (n % CHECKS)) },
    }));
    return { reservations, meta: { total_count: RESERVATIONS, current_page: 1, per_page_count: 10, total_page: 1, has_next_page: false } };
  };
  const check = (id: string) => ({ id, status: 'open', business_date: '2026-11-28' });
  const slowList = () => {
    const note = String(slowVersion).padEnd(SLOW_NOTE_BYTES, '.');
    const reservations = Array.from({ length: 100 }, (_, n) => ({ id: uuid(999, n), type: 'reservation', status, date: '2026-11-28T19:30:00+03:00', note }));
    return { reservations, meta: { total_count: 100, current_page: 1, per_page_count: 100, total_page: 1, has_next_page: false } };
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls: () => calls,
    change: () => (status = status === 'confirmed' ? 'seated' : 'confirmed'),
    changeSlow: () => (slowVersion += 1),
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

function rssMiB(pid: number | undefined): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? NaN) / 1024;
}

async function metric(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return [...text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+]+)$`, 'gm'))].reduce((sum, m) => sum + Number(m[1]), 0);
}

async function until(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const end = performance.now() + timeoutMs;
  while (!check()) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

/** One subscriber over SSE or multipart HTTP on a connection of its own; `times` gets the time of each event it reads. */
function httpSubscribe(url: string, venue: number | 'slow', wire: 'sse' | 'multipart', query: string, times: number[]): { req: ClientRequest; response: Promise<IncomingMessage> } {
  const accept = wire === 'sse' ? 'text/event-stream' : 'multipart/mixed;subscriptionSpec="1.0",application/json';
  const marker = wire === 'sse' ? 'event: next' : '{"payload"';
  const req = request(`${url}/graphql`, {
    method: 'POST',
    agent: false,
    headers: { 'content-type': 'application/json', accept, 'Reservation-Access-Token': `venue-${venue}`, 'Pos-Access-Token': `pos-${venue}` },
  });
  const response = new Promise<IncomingMessage>((resolveResponse) => req.once('response', resolveResponse));
  req.on('response', (res) => {
    let tail = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      const text = tail + chunk;
      for (let i = text.indexOf(marker); i !== -1; i = text.indexOf(marker, i + 1)) times.push(performance.now());
      tail = text.slice(-marker.length + 1);
    });
  });
  req.on('error', () => undefined);
  req.end(JSON.stringify({ query, variables: { date: '2026-11-28' } }));
  return { req, response };
}

async function main(): Promise<void> {
  const upstream = await startUpstream();
  const gateway = await startTarget('gateway', npmStartArgs(resolve(__dirname, '..', '..')), {
    NODE_ENV: 'production',
    SINGLE_REPLICA: 'true',
    LOG_LEVEL: 'warn',
    RESERVATION_BASE_URL: upstream.url,
    POS_BASE_URL: upstream.url,
    LIVE_POLL_SECONDS: String(POLL_SECONDS),
    SHUTDOWN_DELAY_MS: '0',
  });
  const pid = gateway.process.pid;
  await sleep(1000);
  const rssBefore = rssMiB(pid);
  const heapBefore = await metric(gateway.url, 'nodejs_heap_size_used_bytes');
  const sseCount = Math.round(SUBSCRIBERS * SSE_SHARE);
  const multipartCount = Math.round(SUBSCRIBERS * MULTIPART_SHARE);
  const wsCount = SUBSCRIBERS - sseCount - multipartCount;

  // Each subscriber's event times; subscribers of one venue share a poll, whatever their transport.
  const events: number[][] = [];
  const clients: Client[] = [];
  for (let c = 0; c < Math.ceil(wsCount / PER_CONNECTION); c++) {
    const venue = c % VENUES;
    const client = createClient({ url: `${gateway.url.replace('http', 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: { 'Reservation-Access-Token': `venue-${venue}`, 'Pos-Access-Token': `pos-${venue}` }, retryAttempts: 0 });
    clients.push(client);
    for (let s = 0; s < Math.min(PER_CONNECTION, wsCount - c * PER_CONNECTION); s++) {
      const times: number[] = [];
      events.push(times);
      client.subscribe({ query: VIEW, variables: { date: '2026-11-28' } }, { next: () => void times.push(performance.now()), error: (err) => console.error(err), complete: () => undefined });
    }
  }
  const subscribed = performance.now();
  const cpuSubscribing = cpuTimeMs(pid) ?? NaN;
  await until(() => events.every((t) => t.length >= 1), 30_000, 'every first event');
  const firstAll = performance.now() - subscribed;
  const admitCpu = (cpuTimeMs(pid) ?? NaN) - cpuSubscribing;
  await sleep(2000);
  const rssWs = rssMiB(pid);
  const heapAfter = await metric(gateway.url, 'nodejs_heap_size_used_bytes');

  // The HTTP transports, one after the other, so that each one's memory is measured alone.
  const requests: ClientRequest[] = [];
  const rssBy: Record<'sse' | 'multipart', [number, number]> = { sse: [rssWs, rssWs], multipart: [rssWs, rssWs] };
  for (const [wire, count] of [['sse', sseCount], ['multipart', multipartCount]] as const) {
    const before = rssMiB(pid);
    const mine: number[][] = [];
    for (let i = 0; i < count; i++) {
      const times: number[] = [];
      mine.push(times);
      events.push(times);
      requests.push(httpSubscribe(gateway.url, i % VENUES, wire, VIEW, times).req);
    }
    await until(() => mine.every((t) => t.length >= 1), 30_000, `every first ${wire} event`);
    await sleep(2000);
    rssBy[wire] = [before, rssMiB(pid)];
  }
  const rssAfter = rssMiB(pid);

  // Steady state: nothing changes, every venue's view is read once an interval.
  const [calls0, cpu0, polls0] = [upstream.calls(), cpuTimeMs(pid) ?? NaN, await metric(gateway.url, 'tablegraph_live_polls_total')];
  await sleep(WINDOW_MS);
  const [calls1, cpu1, polls1] = [upstream.calls(), cpuTimeMs(pid) ?? NaN, await metric(gateway.url, 'tablegraph_live_polls_total')];
  const steadyEvents = events.reduce((sum, t) => sum + t.length, 0) - SUBSCRIBERS;

  // A change for every venue: how long until the last subscriber has it.
  upstream.change();
  const changed = performance.now();
  await until(() => events.every((t) => t.length >= 2), 30_000, 'every change event');
  const latencies = events.map((t) => t[1] - changed).sort((a, b) => a - b);

  // A subscriber that reads nothing while its view (about 420 KiB an event) changes every interval.
  const slowTimes: number[] = [];
  const slow = httpSubscribe(gateway.url, 'slow', 'sse', SLOW_VIEW, slowTimes);
  await until(() => slowTimes.length >= 1, 30_000, "the slow subscriber's first event");
  const slowResponse = await slow.response;
  slowResponse.pause();
  slowResponse.socket.pause();
  await sleep(1000);
  const slowSamples: number[] = [rssMiB(pid)];
  const slowHeap0 = await metric(gateway.url, 'nodejs_heap_size_used_bytes');
  let slowChanges = 0;
  for (let t = 0; t < SLOW_SECONDS; t += POLL_SECONDS) {
    upstream.changeSlow();
    slowChanges += 1;
    await sleep(POLL_SECONDS * 1000);
    if (Math.round(t + POLL_SECONDS) % 10 === 0) slowSamples.push(rssMiB(pid));
  }
  const slowHeap1 = await metric(gateway.url, 'nodejs_heap_size_used_bytes');
  const readBefore = slowTimes.length;
  slowResponse.socket.resume();
  slowResponse.resume();
  await sleep(3000);
  const slowDelivered = slowTimes.length - readBefore;

  await Promise.all(clients.map(async (c) => c.dispose()));
  for (const r of [...requests, slow.req]) r.destroy();
  await stopProcess(gateway.process);
  await upstream.close();

  const polls = polls1 - polls0;
  const seconds = WINDOW_MS / 1000;
  const perSubscription = (from: number, to: number, count: number) => (count > 0 ? `${(((to - from) * 1024) / count).toFixed(1)} KiB (${count} subscribers; RSS ${from.toFixed(0)} → ${to.toFixed(0)} MiB)` : 'none');
  const rows: Array<[string, string]> = [
    ['subscribers / venues / connections', `${SUBSCRIBERS} / ${VENUES} / ${clients.length} WebSockets + ${sseCount + multipartCount} HTTP`],
    ['LIVE_POLL_SECONDS', String(POLL_SECONDS)],
    ['first event to all WebSocket subscribers', `${firstAll.toFixed(0)} ms (gateway CPU meanwhile ${admitCpu.toFixed(0)} ms)`],
    ['RSS per open subscription, ws (connections included)', perSubscription(rssBefore, rssWs, wsCount)],
    ['RSS per open subscription, sse (connection each)', perSubscription(...rssBy.sse, sseCount)],
    ['RSS per open subscription, multipart (connection each)', perSubscription(...rssBy.multipart, multipartCount)],
    ['RSS per open subscription, all', perSubscription(rssBefore, rssAfter, SUBSCRIBERS)],
    ['heap used per open WebSocket subscription', `${((heapAfter - heapBefore) / 1024 / Math.max(wsCount, 1)).toFixed(1)} KiB (no forced GC)`],
    ['upstream calls per second', `${((calls1 - calls0) / seconds).toFixed(1)} (expected ${((VENUES * (1 + CHECKS)) / POLL_SECONDS).toFixed(1)}: ${VENUES} views × ${1 + CHECKS} calls per read ÷ interval)`],
    ['reads per second', `${(polls / seconds).toFixed(1)} (expected ${(VENUES / POLL_SECONDS).toFixed(1)})`],
    ['events without a change', String(steadyEvents)],
    ['change → last subscriber', `${latencies.at(-1)!.toFixed(0)} ms (p50 ${latencies[Math.floor(latencies.length / 2)].toFixed(0)} ms; interval ${POLL_SECONDS * 1000} ms)`],
    ['gateway CPU per read (steady, fan-out of nothing)', `${((cpu1 - cpu0) / Math.max(polls, 1)).toFixed(2)} ms`],
    [`slow subscriber: RSS over ${SLOW_SECONDS} s unread`, `${slowSamples.map((v) => v.toFixed(0)).join(' → ')} MiB; heap ${(slowHeap0 / 2 ** 20).toFixed(0)} → ${(slowHeap1 / 2 ** 20).toFixed(0)} MiB`],
    ['slow subscriber: events delivered once it reads again', `${slowDelivered} of ${slowChanges} changes (${readBefore} read before it stopped)`],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  process.stdout.write(`\nS5: live subscriptions\n${rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join('\n')}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:live failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
