import type { CustomerResolvers } from '../generated/graphql';
import { posTimestampToDateTime } from '../scalars';

export const Customer: CustomerResolvers = {
  createdAt: (c, _, ctx) => posTimestampToDateTime(c.created_at, ctx.config.posTimestampUnit),
  updatedAt: (c, _, ctx) => posTimestampToDateTime(c.updated_at, ctx.config.posTimestampUnit),
};
