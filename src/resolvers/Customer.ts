import type { CustomerResolvers } from '../generated/graphql';
import { posDateTime } from './posTime';

export const Customer: CustomerResolvers = {
  createdAt: (c, _, { config }) => posDateTime(c, 'created_at', config.posTimestampUnit),
  updatedAt: (c, _, { config }) => posDateTime(c, 'updated_at', config.posTimestampUnit),
};
