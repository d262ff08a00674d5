import { randomUUID } from 'node:crypto';
import type { IdempotencyStore, StoredResponse, TakeResult } from './store';

export interface MemoryIdempotencyStoreOptions {
  /** Bytes of records kept (keys, fingerprints and bodies); past it the oldest stored responses go first. */
  maxBytes: number;
  /** Told of each stored response dropped before its time to make room, so an operator can see it happen. */
  onEvict?: () => void;
  /** The clock, in ms. Default Date.now. */
  now?: () => number;
}

type Entry =
  | { kind: 'running'; fingerprint: string; lease: string; expiresAt: number; size: number }
  | { kind: 'done'; response: StoredResponse; expiresAt: number; size: number };

/** Fixed cost of an entry beyond its strings (the Map slot, the objects). */
const ENTRY_OVERHEAD = 200;

/**
 * The idempotency records of one replica, in its memory: the default without REDIS_URL. Bounded by bytes: when full,
 * the oldest stored responses are dropped first (a retry of one of those runs again, which the eviction count shows);
 * leases are never dropped before they expire, since dropping one would let a repeat run while the first still runs.
 */
export class MemoryIdempotencyStore implements IdempotencyStore {
  /** In insertion order, which is completion order for stored responses: the oldest come first. */
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  private readonly now: () => number;

  constructor(private readonly options: MemoryIdempotencyStoreOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Bytes held now, by the same measure as `maxBytes`. */
  get size(): number {
    return this.bytes;
  }

  take(key: string, fingerprint: string, leaseMs: number): Promise<TakeResult> {
    const entry = this.live(key);
    if (entry?.kind === 'running') return Promise.resolve({ state: 'running', fingerprint: entry.fingerprint });
    if (entry?.kind === 'done') return Promise.resolve({ state: 'done', response: entry.response });
    const lease = randomUUID();
    this.put(key, { kind: 'running', fingerprint, lease, expiresAt: this.now() + leaseMs, size: ENTRY_OVERHEAD + key.length + fingerprint.length + lease.length });
    return Promise.resolve({ state: 'taken', lease });
  }

  complete(key: string, lease: string, response: StoredResponse, ttlSeconds: number): Promise<void> {
    if (this.holds(key, lease)) {
      this.remove(key);
      const size = ENTRY_OVERHEAD + key.length + response.fingerprint.length + Buffer.byteLength(response.body) + (response.contentType?.length ?? 0);
      this.put(key, { kind: 'done', response, expiresAt: this.now() + ttlSeconds * 1000, size });
    }
    return Promise.resolve();
  }

  release(key: string, lease: string): Promise<void> {
    if (this.holds(key, lease)) this.remove(key);
    return Promise.resolve();
  }

  private holds(key: string, lease: string): boolean {
    const entry = this.live(key);
    return entry?.kind === 'running' && entry.lease === lease;
  }

  /** The entry under `key` unless it has expired (an expired one is removed on the way). */
  private live(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (entry && entry.expiresAt <= this.now()) {
      this.remove(key);
      return undefined;
    }
    return entry;
  }

  private put(key: string, entry: Entry): void {
    this.entries.set(key, entry);
    this.bytes += entry.size;
    if (this.bytes > this.options.maxBytes) this.makeRoom(key);
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.size;
  }

  /**
   * From the oldest on, drops expired entries and stored responses until the records fit, never the one just put:
   * a scan that stops as soon as there is room, so a full store costs a few steps per record, not a sweep.
   */
  private makeRoom(keep: string): void {
    const now = this.now();
    for (const [key, entry] of this.entries) {
      if (this.bytes <= this.options.maxBytes) return;
      if (key === keep) continue;
      if (entry.expiresAt <= now) this.remove(key);
      else if (entry.kind === 'done') {
        this.remove(key);
        this.options.onEvict?.();
      }
    }
  }
}
