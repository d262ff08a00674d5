import type { Resolvers } from '../generated/graphql';
import { DateScalar, DateTimeScalar, DecimalScalar, JSONScalar, LocalDateTimeScalar, LocalTimeScalar } from '../scalars';
import { Check } from './Check';
import { Customer } from './Customer';
import { Metafield } from './Metafield';
import { Mutation } from './Mutation';
import { OffDay } from './OffDay';
import { PaymentRequest } from './PaymentRequest';
import { Query } from './Query';
import { Reservation } from './Reservation';

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
  Check,
  Customer,
  Metafield,
  OffDay,
  PaymentRequest,
};

