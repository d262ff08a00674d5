import type { ServiceCredentials } from '../../credentials';
import { MissingCredentialError } from '../../errors';
import { uuidSegment, type CallScope, type UpstreamHttp, type UpstreamRequest } from '../http';
import { ScopedCaller, type ClientRequest } from '../scopedCaller';
import { recordReader } from '../recordReader';
import { Check, EmployeeList, type CheckRecord, type EmployeeListRecord } from './dto';

/** The POS service, for one client request: its credential only, a typed method per operation. */
export class PosClient {
  private readonly caller: ScopedCaller;

  constructor(
    http: UpstreamHttp,
    private readonly credentials: ServiceCredentials,
    private readonly scope: CallScope,
  ) {
    this.caller = new ScopedCaller(http, credentials, scope);
  }

  /** The check as a record, read field by field; refused whole only when the body is no object or has no usable id. */
  async getCheck(id: string): Promise<CheckRecord> {
    const path = `/checks/${uuidSegment(id, 'id')}`;
    const route = '/checks/:id';
    return this.call({ method: 'GET', route, path, response: recordReader(Check, 'pos', route, this.scope) });
  }

  async listEmployees(args: { page: number; perPage: number }): Promise<EmployeeListRecord> {
    const query = { page: args.page, per_page: args.perPage };
    const route = '/employees';
    return this.call({ method: 'GET', route, path: route, query, response: recordReader(EmployeeList, 'pos', route, this.scope) });
  }

  private call<T>(req: ClientRequest<UpstreamRequest<T>>): Promise<T> {
    // Every POS operation takes the token (pos-service.md, "Authentication").
    const missing = this.credentials.missing(['pos-access-token']);
    if (missing.length > 0) throw new MissingCredentialError(missing);
    return this.caller.call(req);
  }
}
