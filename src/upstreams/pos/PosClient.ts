import type { ServiceCredentials } from '../../credentials';
import { MissingCredentialError } from '../../errors';
import { requireBody, uuidSegment, type CallScope, type UpstreamHttp, type UpstreamRequest } from '../http';
import { recordReader } from '../recordReader';
import { Check, EmployeeList, type CheckRecord, type EmployeeListRecord } from './dto';

/** The POS service, for one client request: its credential only, a typed method per operation. */
export class PosClient {
  constructor(
    private readonly http: UpstreamHttp,
    private readonly credentials: ServiceCredentials,
    private readonly scope: CallScope,
  ) {}

  /** The check as a record, read field by field; refused whole only when the body is no object or has no usable id. */
  async getCheck(id: string): Promise<CheckRecord> {
    const path = `/checks/${uuidSegment(id, 'id')}`;
    const route = '/checks/:id';
    return requireBody('pos', await this.call({ method: 'GET', route, path, response: recordReader(Check, 'pos', route, this.scope) }));
  }

  async listEmployees(args: { page: number; perPage: number }): Promise<EmployeeListRecord> {
    const query = { page: args.page, per_page: args.perPage };
    const route = '/employees';
    return requireBody('pos', await this.call({ method: 'GET', route, path: route, query, response: recordReader(EmployeeList, 'pos', route, this.scope) }));
  }

  private call<T>(req: Omit<UpstreamRequest<T>, 'headers' | 'signal' | 'deadline'>): Promise<T | undefined> {
    // Every POS operation takes the token (pos-service.md, "Authentication").
    const missing = this.credentials.missing(['pos-access-token']);
    if (missing.length > 0) throw new MissingCredentialError(missing);
    return this.http.call({ ...req, headers: { ...this.scope.headers(), ...this.credentials.headers('pos') }, signal: this.scope.signal, deadline: this.scope.deadline }, this.scope.record);
  }
}
