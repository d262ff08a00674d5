import type { z } from 'zod';
import { callerHash, type ServiceCredentials } from '../credentials';
import { MissingCredentialError } from '../errors/InputError';
import type { CallContext, CallScope, IgnoredBodyRequest, UpstreamHttp, UpstreamRequest } from './http';
import { UpstreamRecord, type DeviationSink, type Shape } from './record';
import type { ServiceName } from '../errors/UpstreamError';

/** A request as a client writes it: the scope adds the headers, the deadline and its signal. */
export type ClientRequest<R> = Omit<R, 'headers' | 'signal' | 'deadline'>;

/** What every call of one service within one request carries: fixed for the request, so made once. */
interface Fixed {
  sent: Pick<UpstreamRequest<unknown>, 'headers' | 'signal' | 'deadline'>;
  context: CallContext;
}

/**
 * One service's calls within one GraphQL request: its credentials checked and sent (to this service only) with the
 * gateway's headers on every call, the request's deadline, and its id and secrets carried to the transport, so the
 * records name the request and no error quotes a credential.
 */
export class ScopedCaller {
  /** Made on the first call, not here: most requests call only one of the services whose callers they build. */
  private fixed: Fixed | undefined;

  constructor(
    private readonly http: UpstreamHttp,
    private readonly credentials: ServiceCredentials,
    private readonly scope: CallScope,
  ) {}

  /** `required`: the lower-cased credential headers the operation needs; without one, it is refused before any call. */
  call(required: readonly string[], req: ClientRequest<IgnoredBodyRequest>): Promise<void>;
  call<T>(required: readonly string[], req: ClientRequest<UpstreamRequest<T>>): Promise<T>;
  call<T>(required: readonly string[], req: ClientRequest<UpstreamRequest<T>> | ClientRequest<IgnoredBodyRequest>): Promise<T | undefined>;
  call<T>(required: readonly string[], req: ClientRequest<UpstreamRequest<T>> | ClientRequest<IgnoredBodyRequest>): Promise<T | undefined> {
    const missing = this.credentials.missing(required);
    if (missing.length > 0) throw new MissingCredentialError(missing);
    const { sent, context } = (this.fixed ??= this.fix());
    return this.http.call({ ...req, ...sent }, context);
  }

  private fix(): Fixed {
    const { scope, credentials } = this;
    // Shared by every call of the request: nothing downstream writes to it (the transport and tracing copy it first).
    const sentCredentials = credentials.headers(this.http.service);
    const headers = { ...scope.headers(), ...sentCredentials };
    // Shared reads are keyed by the hash of exactly the credentials sent to this service, never by the values.
    const sentByName = new Map(Object.entries(sentCredentials).map(([name, value]) => [name.toLowerCase(), value]));
    const shared = scope.sharedReads && { reads: scope.sharedReads, credentialHash: callerHash((name) => sentByName.get(name)), maxAgeMs: scope.maxAgeMs ?? 0 };
    return {
      sent: { headers, signal: scope.signal, deadline: scope.deadline },
      context: { record: scope.record, requestId: scope.requestId, secrets: credentials.secrets(), ...(shared ? { shared } : {}) },
    };
  }
}

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
