import { bulkhead } from 'cockatiel';
import DataLoader from 'dataloader';
import type { PosClient } from '../upstreams/pos/PosClient';
import type { CheckRecord } from '../upstreams/pos/dto';

/**
 * Checks by id, for one request. POS has no batch endpoint, so a batch becomes concurrent single GETs, at most
 * `concurrency` at a time, each failure an Error in its key's slot; DataLoader's cache makes each distinct id cost one
 * call however often it is asked for. `onBatch` is told the size of each batch (the batch-size metric).
 */
export function checkById(pos: Pick<PosClient, 'getCheck'>, concurrency: number, onBatch?: (size: number) => void): DataLoader<string, CheckRecord> {
  return new DataLoader<string, CheckRecord>((ids) => {
    onBatch?.(ids.length);
    const limit = bulkhead(concurrency, ids.length);
    return Promise.all(ids.map((id) => limit.execute(() => pos.getCheck(id)).catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))))));
  });
}
