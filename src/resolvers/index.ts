import type { Resolvers } from '../generated/graphql';
import { DateScalar, DateTimeScalar, DecimalScalar, JSONScalar, LocalDateTimeScalar, LocalTimeScalar } from '../scalars';
import { Check } from './Check';
import { EmployeePage } from './EmployeePage';
import { Mutation } from './Mutation';
import { OffDay } from './OffDay';
import { PageInfo } from './PageInfo';
import { PaymentRequest } from './PaymentRequest';
import { Query } from './Query';
import { Reservation } from './Reservation';
import { ReservationPage } from './ReservationPage';

/**
 * The GraphQL types whose every source object is an upstream record (src/upstreams/record.ts): codegen.yml maps each
 * to a `…Record` type (test/schema/recordTypes.test.ts keeps the two lists the same). A record answers each of its
 * fields by its GraphQL name through a getter, so these types need no resolver for a snake_case key.
 */
export const RECORD_TYPES: ReadonlySet<string> = new Set([
  'Check',
  'Employee',
  'EmployeePage',
  'Metafield',
  'Customer',
  'CustomerAccountDetail',
  'RevenueCenter',
  'Table',
  'SalesChannel',
  'Device',
  'Tag',
  'CheckServiceCharge',
  'CheckSummary',
  'CheckDiscount',
  'CheckPayment',
  'CheckItem',
  'CheckItemSummary',
  'Item',
  'CheckOffer',
  'Delivery',
  'Tax',
  'PageInfo',
  'Reservation',
  'ReservationPage',
  'ReservationCustomer',
]);

export const resolvers: Resolvers = {
  DateTime: DateTimeScalar,
  LocalDateTime: LocalDateTimeScalar,
  LocalTime: LocalTimeScalar,
  Date: DateScalar,
  Decimal: DecimalScalar,
  JSON: JSONScalar,
  Query,
  Mutation,
  Reservation,
  ReservationPage,
  EmployeePage,
  PageInfo,
  Check,
  OffDay,
  PaymentRequest,
};

