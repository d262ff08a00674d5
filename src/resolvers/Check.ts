import type { CheckResolvers } from '../generated/graphql';

// Fields named as upstream in camelCase need no resolver: the executable schema reads them off the record (the
// `*_at` timestamps too, which the POS reading makes DateTimes).
export const Check: CheckResolvers = {
  serviceCharge: (c) => c.read('check_service_charge'),
  discounts: (c) => c.read('check_discounts'),
  payments: (c) => c.read('check_payments'),
  items: (c) => c.read('check_items'),
  offers: (c) => c.read('check_offers'),
};
