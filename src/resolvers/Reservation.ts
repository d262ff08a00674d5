import type { ReservationResolvers } from '../generated/graphql';

export const Reservation: ReservationResolvers = {
  // The link to POS: through the per-request loader, so a list costs one call per distinct check, concurrently.
  // A `check` object without a usable id fails this field (the link needs one); null means no check.
  check: (reservation, _, ctx) => {
    const ref = reservation.read('check');
    return ref ? ctx.loaders.checkById.load(ref.read('id')) : null;
  },
};
