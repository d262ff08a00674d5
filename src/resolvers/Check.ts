import type { CheckResolvers } from '../generated/graphql';
import { posDateTime } from './posTime';

// Fields named as upstream in camelCase need no resolver: the executable schema reads them off the record.
export const Check: CheckResolvers = {
  createdAt: (c, _, ctx) => posDateTime(c, 'created_at', ctx),
  updatedAt: (c, _, ctx) => posDateTime(c, 'updated_at', ctx),
  closedAt: (c, _, ctx) => posDateTime(c, 'closed_at', ctx),
  serviceCharge: (c) => c.read('check_service_charge'),
  discounts: (c) => c.read('check_discounts'),
  payments: (c) => c.read('check_payments'),
  items: (c) => c.read('check_items'),
  offers: (c) => c.read('check_offers'),
};
