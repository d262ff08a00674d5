import type { MutationResolvers } from '../generated/graphql';
import { CreateOffDayArgs } from '../inputs/offDay';
import { parseArgs } from '../inputs/parse';
import { UpdatePaymentRequestArgs } from '../inputs/paymentRequest';
import { CreateCalendarReservationArgs, CreateReservationArgs } from '../inputs/reservation';

export const Mutation: MutationResolvers = {
  createReservation: async (_, args, ctx) => ({
    reservation: await ctx.reservation.createReservation(parseArgs(CreateReservationArgs, args).input),
  }),

  createCalendarReservation: async (_, args, ctx) => ({
    reservation: await ctx.reservation.createCalendarReservation(parseArgs(CreateCalendarReservationArgs, args).input),
  }),

  // The service answers without a body, so the payload echoes what it accepted.
  createOffDay: async (_, args, ctx) => {
    const body = parseArgs(CreateOffDayArgs, args).input;
    await ctx.reservation.createOffDay(body);
    return { offDay: body };
  },

  updatePaymentRequest: async (_, args, ctx) => {
    const body = parseArgs(UpdatePaymentRequestArgs, args).input;
    await ctx.reservation.updatePaymentRequest(body);
    return { paymentRequest: body };
  },
};
