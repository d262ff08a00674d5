import type { CustomerResolvers } from '../generated/graphql';
import { posDateTime } from './posTime';

export const Customer: CustomerResolvers = {
  createdAt: (c, _, ctx) => posDateTime(c, 'created_at', ctx),
  updatedAt: (c, _, ctx) => posDateTime(c, 'updated_at', ctx),
};
