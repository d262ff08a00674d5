/**
 * The records the sandbox stores and serialises as they are, so every field
 * name is the upstream documents' snake_case name. Nullable fields the
 * documents type as plain values are marked where they are.
 */
import type { Check, Customer, Employee } from './records/pos';
import type { OffDayRecord, PaymentRequestRecord, ReservationCustomerProfile, ReservationRecord } from './records/reservation';

export type * from './records/reservation';
export type * from './records/pos';

// ---- the venue and the whole state

/** Revenue centers share ids between the two services in the sandbox (the documents do not say how they relate). */
export interface RevenueCenter {
  id: string;
  name: string;
}

export interface VenueTable {
  id: string;
  name: string;
  revenue_center_id: string;
  capacity: number;
}

export type TenantKey = 'laTerrazza' | 'bistroNord';

/** One venue: a store to the reservation service, a property to the POS. */
export interface TenantState {
  key: TenantKey;
  name: string;
  slug: string;
  store_id: string;
  property_id: string;
  enterprise_id: string;
  /** The payment-link extension of the store; when off, payment request updates answer 832. */
  payment_link_enabled: boolean;
  revenue_centers: RevenueCenter[];
  tables: VenueTable[];
  employees: Employee[];
  /** POS customers. */
  customers: Map<string, Customer>;
  /** The reservation service's customer book (same people and ids as the POS in the sample). */
  reservation_customers: Map<string, ReservationCustomerProfile>;
  checks: Map<string, Check>;
  reservations: Map<string, ReservationRecord>;
  payment_requests: Map<string, PaymentRequestRecord>;
  off_days: OffDayRecord[];
}

export interface SandboxState {
  /** The instant (ISO 8601, UTC) the sample data was built around. */
  now: string;
  tenants: Record<TenantKey, TenantState>;
}
