import type { OffDayResolvers } from '../generated/graphql';
import { fromUpstreamLocalDateTime } from '../scalars';

export const OffDay: OffDayResolvers = {
  date: (o) => fromUpstreamLocalDateTime(o.date),
  endDate: (o) => fromUpstreamLocalDateTime(o.end_date),
};
