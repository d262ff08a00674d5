import type { z } from 'zod';
import { withInputNames } from '../errors/inputNames';
import type { MutationResolvers } from '../generated/graphql';
import { CreateOffDayArgs } from '../inputs/offDay';
import { parseArgs, upstreamFieldPaths } from '../inputs/parse';
import { UpdatePaymentRequestArgs } from '../inputs/paymentRequest';
import { CreateCalendarReservationArgs, CreateReservationArgs } from '../inputs/reservation';

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
