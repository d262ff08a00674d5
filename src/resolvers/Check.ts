import type { CheckResolvers } from '../generated/graphql';
import { posTimestampToDateTime } from '../scalars';

export const Check: CheckResolvers = {
  createdAt: (c, _, ctx) => posTimestampToDateTime(c.created_at, ctx.config.posTimestampUnit),
  updatedAt: (c, _, ctx) => posTimestampToDateTime(c.updated_at, ctx.config.posTimestampUnit),
  closedAt: (c, _, ctx) => posTimestampToDateTime(c.closed_at, ctx.config.posTimestampUnit),
  serviceCharge: (c) => c.check_service_charge,
  discounts: (c) => c.check_discounts,
  payments: (c) => c.check_payments,
  items: (c) => c.check_items,
  offers: (c) => c.check_offers,
};
