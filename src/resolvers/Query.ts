import { z } from 'zod';
import type { QueryResolvers } from '../generated/graphql';
import { opt, pageArgs, parseArgs, uuidArg } from '../inputs/parse';

const IdArgs = z.object({ id: uuidArg });
const EmployeesArgs = z.object(pageArgs);
const ReservationsArgs = z.object({ date: z.string(), revenueCenterId: opt(uuidArg), ...pageArgs });

export const Query: QueryResolvers = {
  // Through the loader, so a check asked for here and through a reservation in one request costs one call.
  check: (_, args, ctx) => ctx.loaders.checkById.load(parseArgs(IdArgs, args).id),

  employees: (_, args, ctx) => {
    const { page, perPage } = parseArgs(EmployeesArgs, args);
    return ctx.pos.listEmployees({ page, perPage });
  },

  reservation: (_, args, ctx) => ctx.reservation.getReservation(parseArgs(IdArgs, args).id),

  reservations: (_, args, ctx) => {
    const { date, revenueCenterId, page, perPage } = parseArgs(ReservationsArgs, args);
    return ctx.reservation.listReservations({ date, revenueCenterId, page, perPage });
  },
};
