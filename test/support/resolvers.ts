import type { Deviation, RecordOrigin } from '../../src/upstreams/record';
import type { ServiceName } from '../../src/errors/UpstreamError';

/**
 * Runs one field resolver of a resolver map as the executor would (a function, or an object with `resolve`), with
 * no GraphQL info: the resolvers of this gateway never read it.
 */
export function resolveField(resolver: unknown, parent: unknown, args: unknown = {}, ctx: unknown = {}): unknown {
  const fn: unknown = typeof resolver === 'object' && resolver !== null && 'resolve' in resolver ? resolver.resolve : resolver;
  if (typeof fn !== 'function') throw new Error('no resolver for this field');
  const value: unknown = Reflect.apply(fn, undefined, [parent, args, ctx, {}]);
  return value;
}

/** The answer a record came in, collecting its deviations in `seen`. */
export function recordOrigin(service: ServiceName, route: string, seen: Deviation[] = []): RecordOrigin {
  return { service, route, status: 200, deviations: { report: (d) => void seen.push(d) } };
}
