import type { ServiceCredentials } from '../credentials';
import { BODY_IGNORED } from './answer';
import type { CallScope, IgnoredBodyRequest, UpstreamHttp, UpstreamRequest } from './http';

/** A request as a client writes it: the scope adds the headers, the deadline and its signal. */
export type ClientRequest<R> = Omit<R, 'headers' | 'signal' | 'deadline'>;

/**
 * One service's calls within one GraphQL request: its credentials and the gateway's headers on every call, the
 * request's deadline, and its id and secrets carried to the transport, so the records name the request and no
 * error quotes a credential.
 */
export class ScopedCaller {
  constructor(
    private readonly http: UpstreamHttp,
    private readonly credentials: ServiceCredentials,
    private readonly scope: CallScope,
  ) {}

  call(req: ClientRequest<IgnoredBodyRequest>): Promise<void>;
  call<T>(req: ClientRequest<UpstreamRequest<T>>): Promise<T>;
  call<T>(req: ClientRequest<UpstreamRequest<T>> | ClientRequest<IgnoredBodyRequest>): Promise<T | void> {
    const { scope } = this;
    const sent = { headers: { ...scope.headers(), ...this.credentials.headers(this.http.service) }, signal: scope.signal, deadline: scope.deadline };
    const context = { record: scope.record, requestId: scope.requestId, secrets: this.credentials.secrets() };
    return req.response === BODY_IGNORED ? this.http.call({ ...req, ...sent, response: req.response }, context) : this.http.call({ ...req, ...sent }, context);
  }
}
