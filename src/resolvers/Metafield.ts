import type { MetafieldResolvers } from '../generated/graphql';
import { posDateTime } from './posTime';

export const Metafield: MetafieldResolvers = {
  updatedAt: (m, _, { config }) => posDateTime(m, 'updated_at', config.posTimestampUnit),
};
