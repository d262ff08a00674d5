import type { MetafieldResolvers } from '../generated/graphql';
import { posTimestampToDateTime } from '../scalars';

export const Metafield: MetafieldResolvers = {
  updatedAt: (m, _, ctx) => posTimestampToDateTime(m.updated_at, ctx.config.posTimestampUnit),
};
