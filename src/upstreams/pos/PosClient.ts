import type { ServiceCredentials } from '../../credentials';
import { ScopedCaller, recordReader, uuidSegment, type CallScope, type UpstreamHttp } from '../http';
import { POS_REQUIRED_HEADERS, type PosTimestampUnit } from './assumptions';
import { POS_SCHEMAS, type CheckRecord, type EmployeeListRecord } from './dto';

/** The POS service, for one client request: its credential only, a typed method per operation. */
export class PosClient {
  private readonly caller: ScopedCaller;
  private readonly schemas: (typeof POS_SCHEMAS)[PosTimestampUnit];

  /** `timestampUnit`: POS_TIMESTAMP_UNIT, in which the `*_at` fields are read as DateTimes. Default seconds. */
  constructor(
    http: UpstreamHttp,
    credentials: ServiceCredentials,
    private readonly scope: CallScope,
    timestampUnit: PosTimestampUnit = 's',
  ) {
    this.caller = new ScopedCaller(http, credentials, scope);
    this.schemas = POS_SCHEMAS[timestampUnit];
  }

  /** The check as a record, read field by field; refused whole only when the body is no object or has no usable id. */
  async getCheck(id: string): Promise<CheckRecord> {
    const route = '/checks/:id';
    const path = `/checks/${uuidSegment(id, 'id')}`;
    return this.caller.call(POS_REQUIRED_HEADERS, { method: 'GET', route, path, response: recordReader(this.schemas.Check, 'pos', route, this.scope) });
  }

  async listEmployees(args: { page: number; perPage: number }): Promise<EmployeeListRecord> {
    const route = '/employees';
    const query = { page: args.page, per_page: args.perPage };
    return this.caller.call(POS_REQUIRED_HEADERS, { method: 'GET', route, path: route, query, response: recordReader(this.schemas.EmployeeList, 'pos', route, this.scope) });
  }
}
