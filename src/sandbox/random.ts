/**
 * Seeded randomness for the sample data: the same seed gives the same
 * names, prices and ids on every start, so tests and the docs can name them.
 */

/** mulberry32: a tiny 32-bit generator of floats in [0, 1); good enough for sample data, not for secrets. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a, so a stream can be seeded by a readable name such as "laTerrazza:checks". */
export function seedFrom(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

export interface Random {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max], both included. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  /** A UUID v4-shaped string (version and variant bits set) drawn from this stream. */
  uuid(): string;
}

export function createRandom(seed: number | string): Random {
  const next = mulberry32(typeof seed === 'string' ? seedFrom(seed) : seed);
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    pick: (items) => {
      if (items.length === 0) throw new Error('Random.pick: expected a non-empty list');
      return items[int(0, items.length - 1)];
    },
    uuid: () => uuidFrom(next),
  };
}

function uuidFrom(next: () => number): string {
  const bytes = Array.from({ length: 16 }, () => Math.floor(next() * 256));
  bytes[6] = (bytes[6] & 0x0f) | 0x40; // version 4
  bytes[8] = (bytes[8] & 0x3f) | 0x80; // RFC 4122 variant
  const hex = bytes.map((b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
