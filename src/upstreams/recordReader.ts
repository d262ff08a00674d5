import type { z } from 'zod';
import type { ServiceName } from './serviceName';
import type { CallScope } from './http';
import { UpstreamRecord, type DeviationSink, type Shape } from './record';

/** Deviations of calls made outside a GraphQL request's scope (unit tests): nowhere to count them. */
const UNCOUNTED: DeviationSink = { report: () => undefined };

/** The `response` of a call whose answer is read as a record of `schema` (see UpstreamRecord.of). */
export function recordReader<S extends Shape>(
  schema: z.ZodObject<S, z.core.$ZodObjectConfig>,
  service: ServiceName,
  route: string,
  scope: Pick<CallScope, 'deviations'>,
): (body: unknown, status: number) => UpstreamRecord<S> {
  return (body, status) => UpstreamRecord.of(schema, body, { service, route, status, deviations: scope.deviations ?? UNCOUNTED });
}
