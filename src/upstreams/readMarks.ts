import type { RedisConnection } from '../redis/connection';
import { SharedReads, type SharedReadsOptions } from './sharedReads';

/** The Redis channel of the marks: `<instance id> <service> <credential hash>`. */
export const READ_MARKS_CHANNEL = 'tablegraph:reads:marks';
const MARK_MESSAGE = /^(\S+) ((?:reservation|pos) [0-9a-f]{64})$/;

/**
 * The process's shared reads; with Redis, the marks of its writes are published on READ_MARKS_CHANNEL and those of
 * the other replicas applied as they arrive (within Redis's delivery time, well under 1 s). While Redis is away,
 * marks are local: another replica may serve an answer read before the write, at most the `max-age` asked for.
 */
export function createSharedReads(options: Omit<SharedReadsOptions, 'onMark'> & { redis?: RedisConnection }): SharedReads {
  const { redis } = options;
  if (!redis) return new SharedReads(options);
  const reads: SharedReads = new SharedReads({
    ...options,
    onMark: (scope) => {
      // Fails fast while Redis is away (no offline queue): the mark stays local.
      if (redis.available) redis.client.publish(READ_MARKS_CHANNEL, `${reads.instanceId} ${scope}`).catch(() => undefined);
    },
  });
  redis.subscribe(READ_MARKS_CHANNEL, (message) => {
    const mark = MARK_MESSAGE.exec(message);
    if (mark && mark[1] !== reads.instanceId) reads.apply(mark[2]);
  }).catch(() => undefined);
  return reads;
}
