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

