import type { Random } from '../random';
import type { NamedRef, Tax } from '../records';
import type { VenueSeed } from './venueSeed';

export interface MenuItem {
  id: string;
  name: string;
  priceCents: number;
  course: 'food' | 'drink';
  sku: string;
}

export interface PricedRef {
  id: string;
  name: string;
  cents: number;
}

/** The POS master data a check points at (menu, tax, payment types, devices, …), with ids. */
export interface PosCatalog {
  tax: Tax;
  serviceChargeId: string;
  menu: MenuItem[];
  discounts: PricedRef[];
  offers: PricedRef[];
  paymentTypes: { cash: NamedRef; card: NamedRef };
  devices: NamedRef[];
  salesChannels: { dineIn: NamedRef; delivery: NamedRef };
  complimentaryReason: NamedRef;
  /** One shift a day of the sample, oldest first: shifts[0] is 7 days ago, shifts[7] today's, shifts[20] 13 days ahead. */
  shifts: string[];
}

export function buildPosCatalog(seed: VenueSeed, random: Random): PosCatalog {
  const named = (name: string): NamedRef => ({ id: random.uuid(), name });
  return {
    tax: { id: random.uuid(), rate: seed.taxRatePercent, name: `VAT ${seed.taxRatePercent}%` },
    serviceChargeId: random.uuid(),
    menu: seed.menu.map((entry, i) => ({
      id: random.uuid(), ...entry, sku: `${seed.codePrefix}-${String(i + 1).padStart(3, '0')}`,
    })),
    discounts: seed.discounts.map((d) => ({ id: random.uuid(), ...d })),
    offers: seed.offers.map((o) => ({ id: random.uuid(), ...o })),
    paymentTypes: { cash: named('Cash'), card: named('Credit Card') },
    devices: [named('Terminal 1'), named('Bar iPad'), named('Handheld 3')],
    salesChannels: { dineIn: named('Dine-in'), delivery: named('Delivery') },
    complimentaryReason: named('Kitchen delay'),
    shifts: Array.from({ length: 21 }, () => random.uuid()),
  };
}
