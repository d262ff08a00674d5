import type { TenantKey } from '../records';

/** A dish or drink on a venue's menu; prices include tax, in cents. */
export interface MenuEntry {
  name: string;
  priceCents: number;
  course: 'food' | 'drink';
}

export interface PersonSeed {
  first: string;
  last: string;
  gender: 'male' | 'female';
  nickname?: string;
}

export interface RevenueCenterSeed {
  name: string;
  tables: ReadonlyArray<{ name: string; capacity: number }>;
  /** Service charge on dine-in checks, percent of the items after reductions; null: none charged. */
  serviceChargePercent: number | null;
  /** Guests at the bar often pay without giving a name: their checks carry no customer. */
  walkIns: boolean;
  /** Venue-local reservation times of an ordinary day. */
  slots: readonly string[];
  /** Minutes a reservation is expected to last. */
  stayMinutes: number;
}

/** Everything that makes one sample venue what it is; the builders turn it into records. */
export interface VenueSeed {
  key: TenantKey;
  name: string;
  slug: string;
  paymentLinkEnabled: boolean;
  /** Prefix of SKUs, registration numbers and CRM ids, e.g. "LT". */
  codePrefix: string;
  /** Phone numbers are this prefix plus seven digits. */
  phonePrefix: string;
  revenueCenters: readonly RevenueCenterSeed[];
  staff: ReadonlyArray<{ first: string; last: string; role: string }>;
  customers: readonly PersonSeed[];
  menu: readonly MenuEntry[];
  discounts: ReadonlyArray<{ name: string; cents: number }>;
  offers: ReadonlyArray<{ name: string; cents: number }>;
  deliveryAddresses: readonly string[];
  taxRatePercent: number;
  /**
   * Reservations of an ordinary day by weekday, Sunday first: a quiet Monday, a full Saturday. The three weeks of
   * the sample hold each weekday three times, so the sample's size does not depend on the day it is built.
   */
  weekdayVolume: readonly [number, number, number, number, number, number, number];
  /** Parties seated right now, each on an open check (the kitchen's current service). */
  seatedNow: number;
  /** The busy Saturday: 50 reservations over 30 distinct pre-order checks (SAMPLE.laTerrazza.busyDate). */
  busySaturday: boolean;
  /** A holiday the venue is closed: an off day two days after the busy Saturday, its bookings cancelled. */
  holiday: boolean;
  /** Deliveries among the past days' checks. */
  deliveries: boolean;
  /** Names that appear as `created_by` of sample reservations. */
  bookers: readonly string[];
}
