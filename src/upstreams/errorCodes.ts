import type { DocumentedCode } from './documentedCode';
import { POS_ERROR_CODES } from './pos/assumptions';
import { RESERVATION_ERROR_CODES } from './reservation/errorCodes';
import type { ServiceName } from './serviceName';

/** Each service numbers its errors its own way: a code means something only in its own service's table. */
const BY_SERVICE: Readonly<Record<ServiceName, Readonly<Record<number, DocumentedCode>>>> = {
  reservation: RESERVATION_ERROR_CODES,
  pos: POS_ERROR_CODES,
};

/** What the service's document says of this code; undefined for an undocumented code, or none. */
export function documentedCode(service: ServiceName, upstreamCode: number | undefined): DocumentedCode | undefined {
  return upstreamCode === undefined ? undefined : BY_SERVICE[service][upstreamCode];
}
