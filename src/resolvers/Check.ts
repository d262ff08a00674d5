import type { CheckResolvers } from '../generated/graphql';
import { posDateTime } from './posTime';

// Fields named as upstream in camelCase need no resolver: the executable schema reads them off the record.
export const Check: CheckResolvers = {
  createdAt: (c, _, { config }) => posDateTime(c, 'created_at', config.posTimestampUnit),
  updatedAt: (c, _, { config }) => posDateTime(c, 'updated_at', config.posTimestampUnit),
  closedAt: (c, _, { config }) => posDateTime(c, 'closed_at', config.posTimestampUnit),
  serviceCharge: (c) => c.read('check_service_charge'),
  discounts: (c) => c.read('check_discounts'),
  payments: (c) => c.read('check_payments'),
  items: (c) => c.read('check_items'),
  offers: (c) => c.read('check_offers'),
};
