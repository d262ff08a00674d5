import type { FormattedExecutionResult } from 'graphql';
import { z } from 'zod';

/**
 * An event's place in its poll's history: `[shared, local]`, compared in that order. `shared` only grows per poll
 * key across replicas and lease changes (Redis assigns it when the lease holder publishes a change); `local` counts
 * the changes a replica read on its own after it (Redis away, or no Redis), so they sort after what it last heard
 * and before anything the holder publishes once Redis is back.
 */
export const VersionSchema = z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()]);
export type Version = z.infer<typeof VersionSchema>;

/** Whether `a` comes after `b`. */
export function newer(a: Version, b: Version): boolean {
  return a[0] !== b[0] ? a[0] > b[0] : a[1] > b[1];
}

/** What a read produced: its result, the result's hash, and whether it ends the subscriptions (the upstream said 401). */
export const ReadResultSchema = z.object({
  result: z.custom<FormattedExecutionResult>((v) => typeof v === 'object' && v !== null),
  hash: z.string(),
  final: z.boolean(),
});
export type ReadResult = z.infer<typeof ReadResultSchema>;

/** What subscribers receive: a read's result with its version. */
export type LiveEvent = ReadResult & { version: Version };
