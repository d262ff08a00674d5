import type { ReservationPageResolvers } from '../generated/graphql';

/** The assumed `{"reservations": […], "meta": {…}}` (upstreams/reservation/assumptions.ts); each half read only when selected. */
export const ReservationPage: ReservationPageResolvers = {
  nodes: (p) => p.read('reservations'),
  pageInfo: (p) => p.read('meta'),
};
