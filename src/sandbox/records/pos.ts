/** The POS records as the sandbox stores them (upstreams/pos-service.md). */

export interface Metafield {
  id: string;
  key: string;
  value: string;
  value_type: string;
  updated_at: number;
}

export interface Employee {
  id: string;
  first_name: string;
  last_name: string;
  phone_number: string;
  registration_no: string;
  property_id: string;
  metafields: Metafield[];
}

export interface NamedRef {
  id: string;
  name: string;
}

export interface CustomerAccountDetail {
  checks_count: number;
  checks_paid_amount: number;
  total_current_account: number;
  paid_current_account: number;
  remaining_current_account: number;
}

export interface Customer {
  id: string;
  first_name: string;
  last_name: string;
  phone_number: string;
  email: string;
  gender: string;
  enterprise_id: string;
  customer_discount_id: string;
  created_at: number;
  updated_at: number;
  account_detail: CustomerAccountDetail;
  tags: NamedRef[];
  external_id: string;
  metafields: Metafield[];
}

export interface Delivery {
  address: string;
  address_id: string;
  recipient: string;
  payment_names: string[];
}

export interface Tax {
  id: string;
  rate: number;
  name: string;
}

export interface CheckServiceCharge {
  id: string;
  service_charge_id: string;
  business_date: string;
  amount: string;
  tax_amount: string;
  net_amount: string;
  tax: Tax;
}

export interface CheckSummary {
  original_items_amount: string;
  original_taxes_amount: string;
  complimentaries_amount: string;
  discounts_amount: string;
  taxes_amount: string;
  service_charge_amount: string;
  paid_amount: string;
  unpaid_amount: string;
  paid_service_charge_amount: string;
  total_amount: string;
  base_amount: string;
  offer_amount: string;
}

export interface CheckDiscount {
  id: string;
  business_date: string;
  source: string;
  value: string;
  discount_amount: string;
  discount_id: string;
  name: string;
  type: string;
  annotation: string;
}

export interface CheckPayment {
  id: string;
  business_date: string;
  payment_type_id: string;
  paid_amount: string;
  device: NamedRef;
  extras: Record<string, unknown>;
}

export interface CheckItemSummary {
  discount_amount: string;
  tax_amount: string;
  total_amount: string;
  original_amount: string;
  original_tax_amount: string;
}

export interface CheckItem {
  id: string;
  /** Types not shown; null on top-level items. */
  parent_check_item_id: string | null;
  /** Types not shown; the reason of a complimentary item, otherwise null. */
  reason_id: string | null;
  business_date: string;
  status: string;
  payment_status: string;
  complimentary: boolean;
  unit_type: string;
  quantity: string;
  notes: string[];
  is_combo: boolean;
  summary: CheckItemSummary;
  tax: Tax;
  item: { id: string; name: string; type: string; source_id: string };
}

export interface CheckOffer {
  id: string;
  offer_id: string;
  name: string;
  value: string;
}

/**
 * A POS check. The document types the nested objects and closed_at as plain
 * values; the sandbox answers null where a real check has nothing to say
 * (closed_at while open, table on delivery, customer on walk-ins, delivery
 * on dine-in, check_service_charge when none was charged).
 */
export interface Check {
  id: string;
  alias: string;
  created_at: number;
  updated_at: number;
  closed_at: number | null;
  business_date: string;
  female_cover: number;
  male_cover: number;
  child_cover: number;
  note: string;
  sequence: number;
  sequential_id: number;
  status: string;
  delivery_status: string;
  property_id: string;
  revenue_center: NamedRef;
  shift_id: string;
  employee: Employee;
  table: NamedRef | null;
  sales_channel: NamedRef;
  customer: Customer | null;
  delivery: Delivery | null;
  extras: Record<string, unknown>;
  check_service_charge: CheckServiceCharge | null;
  summary: CheckSummary;
  check_discounts: CheckDiscount[];
  check_payments: CheckPayment[];
  check_items: CheckItem[];
  check_offers: CheckOffer[];
}
