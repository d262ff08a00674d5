import type { ServiceCredentials } from '../../credentials';
import { MissingCredentialError } from '../../errors';
import { requireBody, uuidSegment, type CallScope, type UpstreamHttp, type UpstreamRequest } from '../http';
import { Check, EmployeeList, type CheckDto, type EmployeeListDto } from './dto';

/** The POS service, for one client request: its credential only, a typed method per operation. */
export class PosClient {
  constructor(
    private readonly http: UpstreamHttp,
    private readonly credentials: ServiceCredentials,
    private readonly scope: CallScope,
  ) {}

  async getCheck(id: string): Promise<CheckDto> {
    const path = `/checks/${uuidSegment(id, 'id')}`;
    return requireBody('pos', await this.call({ method: 'GET', route: '/checks/:id', path, response: Check }));
  }

  async listEmployees(args: { page: number; perPage: number }): Promise<EmployeeListDto> {
    const query = { page: args.page, per_page: args.perPage };
    return requireBody('pos', await this.call({ method: 'GET', route: '/employees', path: '/employees', query, response: EmployeeList }));
  }

  private call<T>(req: Omit<UpstreamRequest<T>, 'headers' | 'signal' | 'deadline'>): Promise<T | undefined> {
    // Every POS operation takes the token (pos-service.md, "Authentication").
    const missing = this.credentials.missing(['pos-access-token']);
    if (missing.length > 0) throw new MissingCredentialError(missing);
    return this.http.call({ ...req, headers: { ...this.scope.headers(), ...this.credentials.headers('pos') }, signal: this.scope.signal, deadline: this.scope.deadline }, this.scope.record);
  }
}
