import { z } from 'zod';
import type { QueryResolvers } from '../generated/graphql';
import { opt, pageArgs, parseArgs, uuidArg } from '../inputs/parse';

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
