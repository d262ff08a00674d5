import { withInputNames } from '../errors/inputNames';
import type { MutationResolvers } from '../generated/graphql';
import { CreateOffDayArgs } from '../inputs/offDay';
import { parseArgs, upstreamFieldPaths } from '../inputs/parse';
import { UpdatePaymentRequestArgs } from '../inputs/paymentRequest';
import { CreateCalendarReservationArgs, CreateReservationArgs } from '../inputs/reservation';

/** Upstream field → GraphQL input path of each mutation, read off its mapper once, so refusals speak GraphQL. */
const FIELDS = {
  createReservation: upstreamFieldPaths(CreateReservationArgs),
  createCalendarReservation: upstreamFieldPaths(CreateCalendarReservationArgs),
  createOffDay: upstreamFieldPaths(CreateOffDayArgs),
  updatePaymentRequest: upstreamFieldPaths(UpdatePaymentRequestArgs),
};

export const Mutation: MutationResolvers = {
  createReservation: async (_, args, ctx) => ({
    reservation: await withInputNames(FIELDS.createReservation, ctx.reservation.createReservation(parseArgs(CreateReservationArgs, args).input)),
  }),

  createCalendarReservation: async (_, args, ctx) => ({
    reservation: await withInputNames(
      FIELDS.createCalendarReservation,
      ctx.reservation.createCalendarReservation(parseArgs(CreateCalendarReservationArgs, args).input),
    ),
  }),

  // The service answers without a body, so the payload echoes what it accepted.
  createOffDay: async (_, args, ctx) => {
    const body = parseArgs(CreateOffDayArgs, args).input;
    await withInputNames(FIELDS.createOffDay, ctx.reservation.createOffDay(body));
    return { offDay: body };
  },

  updatePaymentRequest: async (_, args, ctx) => {
    const body = parseArgs(UpdatePaymentRequestArgs, args).input;
    await withInputNames(FIELDS.updatePaymentRequest, ctx.reservation.updatePaymentRequest(body));
    return { paymentRequest: body };
  },
};
