import type { MetafieldResolvers } from '../generated/graphql';
import { posDateTime } from './posTime';

export const Metafield: MetafieldResolvers = {
  updatedAt: (m, _, ctx) => posDateTime(m, 'updated_at', ctx),
};
