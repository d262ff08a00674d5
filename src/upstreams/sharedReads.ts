import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { RedisConnection } from '../redis/connection';
import { CallAbort, type CallSignal } from './callSignal';
import { deadlineError } from './transport';
import type { ServiceName } from '../errors/UpstreamError';
import type { Answer } from './transport';

/** Where a request's upstream read came from: its own call, another request's call in flight, or a kept answer. */
export type ReadSource = 'upstream' | 'joined' | 'cache';

/** One upstream GET: its route template (for the metric), path with query, and callerHash() of the credentials sent. */
export interface ReadKey {
  service: ServiceName;
  route: string;
  target: string;
  credentialHash: string;
}

export interface ReadOptions {
  /** The request's own signal: when it aborts, this request stops waiting (others go on). */
  signal?: CallSignal;
  /** Oldest kept answer the request accepts, in ms (its `Cache-Control: max-age`, capped); 0: none. */
  maxAgeMs: number;
}

/** Where a read's answer comes from, known at once, and the answer (`ageMs` for a kept one). */
export interface SharedRead {
  source: ReadSource;
  ageMs?: number;
  answer: Promise<Answer>;
}

export interface SharedReadsOptions {
  /** The longest `max-age` honoured, in seconds (UPSTREAM_CACHE_MAX_AGE_SECONDS); 0 keeps no answers. */
  maxAgeSeconds: number;
  /** Bytes of kept answers, least recently used out first (UPSTREAM_CACHE_MAX_MB). */
  maxBytes: number;
  /** The clock of the kept answers' ages, ms. Default Date.now. */
  now?: () => number;
  /** Each read, by source: the `tablegraph_upstream_reads_total` metric. */
  onRead?: (key: ReadKey, source: ReadSource) => void;
  /**
   * Shares the marks of writes with the other replicas (READ_MARKS_CHANNEL). While Redis is away marks stay local:
   * another replica may serve an answer read before the write, at most the `max-age` asked for.
   */
  redis?: RedisConnection;
}

/**
 * A read in flight: the one upstream call every request with its key waits for. It leaves `inFlight` when it settles,
 * is abandoned, or a write of its scope finishes; only an answer still there when it settles is kept. Each request
 * waits on a promise of its own (a Waiter), settled by the call or by the request's own signal, whichever is first.
 */
class InFlight {
  readonly controller = new CallAbort();
  /** Requests still waiting for it; when none is left before it settles, the call is aborted. */
  readonly waiters: Waiter[] = [];
  settled = false;

  constructor(
    readonly id: string,
    readonly scope: string,
    private readonly inFlight: Map<string, InFlight>,
  ) {}

  /** Takes it out of `inFlight`; whether it was still there (no write of its scope came, not abandoned). */
  leave(): boolean {
    const current = this.inFlight.get(this.id) === this;
    if (current) this.inFlight.delete(this.id);
    return current;
  }

  /** No request waits any more: the call is cut, and a later request starts its own. */
  abandon(): void {
    this.leave();
    this.controller.abort();
  }

  /** The call settled: every request still waiting gets its outcome. */
  settle(ok: boolean, outcome: unknown): void {
    this.settled = true;
    for (const waiter of this.waiters.splice(0)) waiter.settle(ok, outcome);
  }
}

/** One request waiting for a read: its own promise, rejected alone when its signal aborts first. */
class Waiter {
  resolve!: (answer: Answer) => void;
  reject!: (err: unknown) => void;

  constructor(
    private readonly entry: InFlight,
    private readonly signal: CallSignal | undefined,
    private readonly service: ServiceName,
  ) {}

  settle(ok: boolean, outcome: unknown): void {
    this.signal?.removeEventListener('abort', this);
    if (ok) this.resolve(outcome as Answer);
    else this.reject(outcome);
  }

  /** The request's signal aborted: it stops waiting (a deadline error); the call goes on while others wait. */
  handleEvent(): void {
    this.signal?.removeEventListener('abort', this);
    this.reject(deadlineError(this.service));
    this.leave();
  }

  leave(): void {
    const { waiters } = this.entry;
    const at = waiters.indexOf(this);
    if (at >= 0) waiters.splice(at, 1);
    if (waiters.length === 0 && !this.entry.settled) this.entry.abandon();
  }
}

/** A kept 2xx answer; `readAt` is when its read started, so its age never understates how old the data is. */
interface Kept {
  status: number;
  text: string;
  bytes: number;
  readAt: number;
  scope: string;
}

/** The Redis channel of the marks: `<instance id> <service> <credential hash>`. */
export const READ_MARKS_CHANNEL = 'tablegraph:reads:marks';
const MARK_MESSAGE = /^(\S+) ((?:reservation|pos) [0-9a-f]{64})$/;

/** Per-entry bytes besides the text, so a flood of tiny answers is bounded too. */
const ENTRY_OVERHEAD_BYTES = 256;

/**
 * One process's shared upstream reads (CONTRACT.md, "Shared upstream reads"): a GET whose key is in flight is joined
 * (its failure shared too), and a request that accepts `max-age` may get a 2xx read at most that old. Keyed by the
 * hash of the credentials sent, so no request gets an answer read with other credentials. A finished write marks its
 * scope (service + credential hash): kept answers of the scope are dropped and reads in flight no longer joined nor
 * kept. lru-cache rather than undici's MemoryCacheStore, which evicts by halves, cannot drop one credential's
 * variants of a path, and takes freshness from upstream headers these upstreams never send.
 */
export class SharedReads {
  private readonly inFlight = new Map<string, InFlight>();
  private readonly kept: LRUCache<string, Kept> | undefined;
  /** The keys of the kept answers of each scope, so a mark drops them without a scan. */
  private readonly keptByScope = new Map<string, Set<string>>();
  private readonly now: () => number;
  /** Names this process on the marks it publishes, so it does not apply its own twice. */
  readonly instanceId = randomUUID();

  constructor(private readonly options: SharedReadsOptions) {
    this.now = options.now ?? Date.now;
    options.redis
      ?.subscribe(READ_MARKS_CHANNEL, (message) => {
        const mark = MARK_MESSAGE.exec(message);
        if (mark && mark[1] !== this.instanceId) this.apply(mark[2]);
      })
      .catch(() => undefined);
    if (options.maxAgeSeconds > 0 && options.maxBytes > 0) {
      this.kept = new LRUCache<string, Kept>({
        maxSize: options.maxBytes,
        sizeCalculation: (kept, key) => kept.bytes + key.length + ENTRY_OVERHEAD_BYTES,
        // Nothing older than the cap can be asked for: its lifetime is the cap, on the same clock as the ages.
        ttl: options.maxAgeSeconds * 1000,
        perf: { now: () => this.now() },
        dispose: (kept, key) => this.unindex(kept.scope, key),
      });
    }
  }

  /** The longest `max-age` a request may use, ms: 0 when nothing is kept. */
  get maxAgeMs(): number {
    return this.kept ? this.options.maxAgeSeconds * 1000 : 0;
  }

  /**
   * The answer of `key`: kept (when `maxAgeMs` allows), joined, or from `fetch` (resolves only with a 2xx). A request
   * waits only until its own signal aborts, then fails alone; the shared call is aborted only when no request waits
   * any more. Its retries are bounded by the deadline of the request that started it (`fetch` closes over it).
   */
  read(key: ReadKey, fetch: (signal: CallSignal) => Promise<Answer>, options: ReadOptions): SharedRead {
    const id = entryKey(key);
    const kept = this.keptAnswer(id, options.maxAgeMs);
    if (kept) return this.counted(key, { source: 'cache', ageMs: kept.ageMs, answer: Promise.resolve(kept.answer) });
    const joined = this.inFlight.get(id);
    const entry = joined ?? this.start(id, scopeOf(key), fetch);
    return this.counted(key, { source: joined ? 'joined' : 'upstream', answer: wait(entry, options.signal, key.service) });
  }

  /** A write of `service` with these credentials finished: what was read before it is not served later. */
  mark(service: ServiceName, credentialHash: string): void {
    const scope = `${service} ${credentialHash}`;
    this.apply(scope);
    const { redis } = this.options;
    // Fails fast while Redis is away (no offline queue): the mark stays local.
    if (redis?.available) redis.client.publish(READ_MARKS_CHANNEL, `${this.instanceId} ${scope}`).catch(() => undefined);
  }

  /** Applies a mark (`<service> <credential hash>`), made here or on another replica. */
  apply(scope: string): void {
    for (const [id, entry] of this.inFlight) if (entry.scope === scope) this.inFlight.delete(id);
    const keys = this.keptByScope.get(scope);
    if (keys) for (const id of [...keys]) this.kept?.delete(id);
  }

  /** Drops the kept answer of `key` (its text turned out unreadable for a request). */
  forget(key: ReadKey): void {
    this.kept?.delete(entryKey(key));
  }

  /** Bytes of kept answers (what UPSTREAM_CACHE_MAX_MB bounds). */
  get keptBytes(): number {
    return this.kept?.calculatedSize ?? 0;
  }

  private start(id: string, scope: string, fetch: (signal: CallSignal) => Promise<Answer>): InFlight {
    const readAt = this.now();
    const entry = new InFlight(id, scope, this.inFlight);
    const answer = fetch(entry.controller);
    this.inFlight.set(id, entry);
    // Failures are shared with the requests waiting now, never kept: the next request calls again.
    answer.then(
      (answer) => {
        try {
          if (entry.leave()) this.keep(id, scope, answer, readAt);
        } finally {
          entry.settle(true, answer);
        }
      },
      (err: unknown) => {
        entry.leave();
        entry.settle(false, err);
      },
    );
    return entry;
  }

  private keep(id: string, scope: string, answer: Answer, readAt: number): void {
    if (!this.kept) return;
    this.kept.set(id, { status: answer.status, text: answer.text, bytes: answer.bytes, readAt, scope });
    // lru-cache refuses an entry larger than the whole store; only what it holds is indexed.
    if (!this.kept.has(id)) return;
    let keys = this.keptByScope.get(scope);
    if (!keys) this.keptByScope.set(scope, (keys = new Set()));
    keys.add(id);
  }

  private keptAnswer(id: string, maxAgeMs: number): { answer: Answer; ageMs: number } | undefined {
    if (!this.kept || maxAgeMs <= 0) return undefined;
    const kept = this.kept.get(id);
    if (!kept) return undefined;
    const ageMs = Math.max(0, this.now() - kept.readAt);
    if (ageMs > maxAgeMs) return undefined;
    return { answer: { status: kept.status, headers: {}, text: kept.text, bytes: kept.bytes, json: undefined }, ageMs };
  }

  private unindex(scope: string, id: string): void {
    const keys = this.keptByScope.get(scope);
    if (!keys) return;
    keys.delete(id);
    if (keys.size === 0) this.keptByScope.delete(scope);
  }

  private counted(key: ReadKey, read: SharedRead): SharedRead {
    this.options.onRead?.(key, read.source);
    return read;
  }
}

/** What a write marks, and a read's key within it. */
const scopeOf = (key: ReadKey): string => `${key.service} ${key.credentialHash}`;
const entryKey = (key: ReadKey): string => `${scopeOf(key)} GET ${key.target}`;

/** A request's wait for `entry`: it ends with the call, or alone when the request's signal aborts first. */
function wait(entry: InFlight, signal: CallSignal | undefined, service: ServiceName): Promise<Answer> {
  const waiter = new Waiter(entry, signal, service);
  const answer = new Promise<Answer>((resolve, reject) => {
    waiter.resolve = resolve;
    waiter.reject = reject;
  });
  if (signal?.aborted) {
    waiter.reject(deadlineError(service));
    waiter.leave();
    return answer;
  }
  entry.waiters.push(waiter);
  signal?.addEventListener('abort', waiter);
  return answer;
}

/** The seconds of a request's `Cache-Control: max-age=N` (RFC 9111 §5.2.1), or 0 when no kept answer may be used. */
export function requestMaxAgeSeconds(header: string | undefined): number {
  if (!header) return 0;
  let maxAge: number | undefined;
  for (const part of header.split(',')) {
    const [rawName, ...rest] = part.split('=');
    const name = rawName.trim().toLowerCase();
    // no-cache and no-store: the client wants what the upstream says now.
    if (name === 'no-cache' || name === 'no-store') return 0;
    if (name !== 'max-age') continue;
    // Token or quoted-string form (§5.2); anything else is no max-age at all.
    const value = /^"?(\d+)"?$/.exec(rest.join('=').trim())?.[1];
    if (value === undefined || rest.length === 0) return 0;
    // A repeated directive is invalid (§4.2.1); the least staleness asked for is the safe reading.
    const seconds = Math.min(Number(value), Number.MAX_SAFE_INTEGER);
    maxAge = maxAge === undefined ? seconds : Math.min(maxAge, seconds);
  }
  return maxAge ?? 0;
}
