import { z } from 'zod';
import { withInputNames } from '../errors/upstreamErrorCode';
import type {
  CheckResolvers,
  EmployeePageResolvers,
  MutationResolvers,
  OffDayResolvers,
  PageInfoResolvers,
  PaymentRequestResolvers,
  QueryResolvers,
  ReservationPageResolvers,
  ReservationResolvers,
  Resolvers,
} from '../generated/graphql';
import { CreateCalendarReservationArgs, CreateOffDayArgs, CreateReservationArgs, UpdatePaymentRequestArgs } from '../inputs/reservation';
import { opt, pageArgs, parseArgs, upstreamFieldPaths, uuidArg } from '../inputs/parse';
import { fractionDigits } from '../inputs/standards';
import { DateScalar, DateTimeScalar, DecimalScalar, JSONScalar, LocalDateTimeScalar, LocalTimeScalar, fromUpstreamLocalDateTime } from '../scalars';

/**
 * The types whose every source is an upstream record (../upstreams/record.ts), mapped to a `…Record` in codegen.yml
 * (test/schema/recordTypes.test.ts): a record answers its fields by their GraphQL names, with no snake_case resolver.
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

const IdArgs = z.object({ id: uuidArg });
const EmployeesArgs = z.object(pageArgs);
const ReservationsArgs = z.object({ date: z.string(), revenueCenterId: opt(uuidArg), ...pageArgs });

export const Query: QueryResolvers = {
  // Through the loader, so a check asked for here and through a reservation in one request costs one call.
  check: (_, args, ctx) => ctx.loaders.checkById.load(parseArgs(IdArgs, args).id),

  employees: (_, args, ctx) => ctx.pos.listEmployees(parseArgs(EmployeesArgs, args)),

  reservation: (_, args, ctx) => ctx.reservation.getReservation(parseArgs(IdArgs, args).id),

  reservations: (_, args, ctx) => ctx.reservation.listReservations(parseArgs(ReservationsArgs, args)),
};

/** Parses a mutation's input into its upstream body and sends it, the upstream's refusals named after the input. */
async function send<Body, T>(schema: z.ZodObject & z.ZodType<{ input: Body }>, args: unknown, call: (body: Body) => Promise<T>) {
  const body = parseArgs(schema, args).input;
  return { body, answer: await withInputNames(upstreamFieldPaths(schema), call(body)) };
}

// The off-day and payment-request operations answer without a body, so their payloads echo what was accepted.
export const Mutation: MutationResolvers = {
  createReservation: async (_, args, ctx) => ({
    reservation: (await send(CreateReservationArgs, args, (body) => ctx.reservation.createReservation(body))).answer,
  }),
  createCalendarReservation: async (_, args, ctx) => ({
    reservation: (await send(CreateCalendarReservationArgs, args, (body) => ctx.reservation.createCalendarReservation(body))).answer,
  }),
  createOffDay: async (_, args, ctx) => ({
    offDay: (await send(CreateOffDayArgs, args, (body) => ctx.reservation.createOffDay(body))).body,
  }),
  updatePaymentRequest: async (_, args, ctx) => ({
    paymentRequest: (await send(UpdatePaymentRequestArgs, args, (body) => ctx.reservation.updatePaymentRequest(body))).body,
  }),
};

// Only renamed fields need a resolver: the rest are read off the record by their GraphQL names.
export const Check: CheckResolvers = {
  serviceCharge: (c) => c.read('check_service_charge'),
  discounts: (c) => c.read('check_discounts'),
  payments: (c) => c.read('check_payments'),
  items: (c) => c.read('check_items'),
  offers: (c) => c.read('check_offers'),
};

export const PageInfo: PageInfoResolvers = {
  perPage: (m) => m.read('per_page_count'),
  totalPages: (m) => m.read('total_page'),
};

// Each half of a page is read only when selected.
export const EmployeePage: EmployeePageResolvers = {
  nodes: (p) => p.read('employees'),
  pageInfo: (p) => p.read('meta'),
};

export const ReservationPage: ReservationPageResolvers = {
  nodes: (p) => p.read('reservations'),
  pageInfo: (p) => p.read('meta'),
};

export const Reservation: ReservationResolvers = {
  // The link to POS: through the per-request loader, so a list costs one call per distinct check, concurrently.
  // A `check` object without a usable id fails this field (the link needs one); null means no check.
  check: (reservation, _, ctx) => {
    const ref = reservation.read('check');
    return ref ? ctx.loaders.checkById.load(ref.read('id')) : null;
  },
};

export const OffDay: OffDayResolvers = {
  date: (o) => fromUpstreamLocalDateTime(o.date),
  endDate: (o) => fromUpstreamLocalDateTime(o.end_date),
};

export const PaymentRequest: PaymentRequestResolvers = {
  // The upstream takes the amount as a JSON number; the contract shows money as a Decimal string.
  amount: (p) => (p.amount === undefined ? null : p.amount.toFixed(Math.max(2, fractionDigits(String(p.amount))))),
};

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
