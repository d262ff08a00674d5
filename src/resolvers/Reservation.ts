import type { ReservationResolvers } from '../generated/graphql';

export const Reservation: ReservationResolvers = {
  // The link to POS: through the per-request loader, so a list costs one call per distinct check, concurrently.
  check: (reservation, _, ctx) => {
    const id = reservation.check?.id;
    return id ? ctx.loaders.checkById.load(id) : null;
  },
};
