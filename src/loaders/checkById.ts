import DataLoader from 'dataloader';
import type { PosClient } from '../upstreams/pos/PosClient';
import type { CheckRecord } from '../upstreams/pos/dto';

/**
 * Checks by id, for one request. POS has no batch endpoint, so a batch becomes concurrent single GETs, at most
 * `concurrency` at a time; DataLoader's cache makes each distinct id cost one call however often it is asked for.
 * `onBatch` is told the size of each batch (the batch-size metric).
 */
export function checkById(pos: Pick<PosClient, 'getCheck'>, concurrency: number, onBatch?: (size: number) => void): DataLoader<string, CheckRecord> {
  return new DataLoader<string, CheckRecord>((ids) => {
    onBatch?.(ids.length);
    return mapSettled(ids, concurrency, (id) => pos.getCheck(id));
  });
}

/**
 * Runs `fn` over `items` with at most `limit` in flight; answers in key order, at key length, with the Error in
 * the slot of each item that failed (DataLoader's batch contract).
 */
export async function mapSettled<K, V>(items: readonly K[], limit: number, fn: (item: K) => Promise<V>): Promise<Array<V | Error>> {
  const results = new Array<V | Error>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      try {
        results[index] = await fn(items[index]);
      } catch (err) {
        results[index] = err instanceof Error ? err : new Error(String(err));
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
