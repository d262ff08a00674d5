import { z } from 'zod';
import type { RecordOf } from '../record';
import { PaginationMeta, dateString, int, jsonObject, moneyString, stringList, uuid } from '../schemas';
import { blankWhenNotApplicable, paymentNames, posDateTime, type PosTimestampUnit } from './assumptions';

/** POS response bodies (pos-service.md, "Resources and their fields"), read as ../schemas.ts and ./assumptions.ts say. */

export const Named = z.object({ id: uuid, name: z.string() });

export const Tax = z.object({ id: uuid, rate: int, name: z.string() });
export type TaxDto = z.infer<typeof Tax>;

export const CustomerAccountDetail = z.object({
  checks_count: int,
  checks_paid_amount: int,
  total_current_account: int,
  paid_current_account: int,
  remaining_current_account: int,
});

export const Delivery = z.object({
  address: z.string(),
  address_id: uuid,
  recipient: z.string(),
  payment_names: paymentNames,
});

export const CheckServiceCharge = z.object({
  id: uuid,
  service_charge_id: uuid,
  business_date: dateString,
  amount: moneyString,
  tax_amount: moneyString,
  net_amount: moneyString,
  tax: Tax,
});

export const CheckSummary = z.object({
  original_items_amount: moneyString,
  original_taxes_amount: moneyString,
  complimentaries_amount: moneyString,
  discounts_amount: moneyString,
  taxes_amount: moneyString,
  service_charge_amount: moneyString,
  paid_amount: moneyString,
  unpaid_amount: moneyString,
  paid_service_charge_amount: moneyString,
  total_amount: moneyString,
  base_amount: moneyString,
  offer_amount: moneyString,
});

export const CheckDiscount = z.object({
  id: uuid,
  business_date: dateString,
  source: z.string(),
  value: moneyString,
  discount_amount: moneyString,
  discount_id: uuid,
  name: z.string(),
  type: z.string(),
  annotation: z.string(),
});

export const CheckPayment = z.object({
  id: uuid,
  business_date: dateString,
  payment_type_id: uuid,
  paid_amount: moneyString,
  device: Named,
  extras: jsonObject,
});

export const CheckItemSummary = z.object({
  discount_amount: moneyString,
  tax_amount: moneyString,
  total_amount: moneyString,
  original_amount: moneyString,
  original_tax_amount: moneyString,
});

export const Item = z.object({ id: uuid, name: z.string(), type: z.string(), source_id: z.string() });

export const CheckItem = z.object({
  id: uuid,
  parent_check_item_id: blankWhenNotApplicable(z.string()),
  reason_id: blankWhenNotApplicable(z.string()),
  business_date: dateString,
  status: z.string(),
  payment_status: z.string(),
  complimentary: z.boolean(),
  unit_type: z.string(),
  quantity: moneyString,
  notes: stringList,
  is_combo: z.boolean(),
  summary: CheckItemSummary,
  tax: Tax,
  item: Item,
});

export const CheckOffer = z.object({
  id: uuid,
  offer_id: uuid,
  name: z.string(),
  value: z.string(),
});

/** The records with `*_at` fields (DateTimes in POS_TIMESTAMP_UNIT) and those holding them: one set per unit. */
function timestamped(unit: PosTimestampUnit) {
  const at = posDateTime(unit);
  const Metafield = z.object({
    id: uuid,
    key: z.string(),
    value: z.string(),
    value_type: z.string(),
    updated_at: at,
  });
  const Employee = z.object({
    id: uuid,
    first_name: z.string(),
    last_name: z.string(),
    phone_number: z.string(),
    registration_no: z.string(),
    property_id: uuid,
    metafields: z.array(Metafield),
  });
  const Customer = z.object({
    id: uuid,
    first_name: z.string(),
    last_name: z.string(),
    phone_number: z.string(),
    email: z.string(),
    gender: z.string(),
    enterprise_id: uuid,
    customer_discount_id: uuid,
    created_at: at,
    updated_at: at,
    account_detail: CustomerAccountDetail,
    tags: z.array(Named),
    external_id: z.string(),
    metafields: z.array(Metafield),
  });
  const Check = z.object({
    id: uuid,
    alias: z.string(),
    created_at: at,
    updated_at: at,
    closed_at: blankWhenNotApplicable(at),
    business_date: dateString,
    female_cover: int,
    male_cover: int,
    child_cover: int,
    note: z.string(),
    sequence: int,
    sequential_id: int,
    status: z.string(),
    delivery_status: z.string(),
    property_id: uuid,
    revenue_center: Named,
    shift_id: uuid,
    employee: Employee,
    table: blankWhenNotApplicable(Named),
    sales_channel: Named,
    customer: blankWhenNotApplicable(Customer),
    delivery: blankWhenNotApplicable(Delivery),
    extras: jsonObject,
    check_service_charge: blankWhenNotApplicable(CheckServiceCharge),
    summary: CheckSummary,
    check_discounts: z.array(CheckDiscount),
    check_payments: z.array(CheckPayment),
    check_items: z.array(CheckItem),
    check_offers: z.array(CheckOffer),
  });
  const EmployeeList = z.object({ meta: PaginationMeta, employees: z.array(Employee) });
  return { Metafield, Employee, Customer, Check, EmployeeList };
}

/** Each unit's schemas; PosClient reads with those of the configured unit. */
export const POS_SCHEMAS = { s: timestamped('s'), ms: timestamped('ms') } as const;

/** The schemas in seconds: the declaration the types below name (both units read to the same types). */
export const { Metafield, Employee, Customer, Check, EmployeeList } = POS_SCHEMAS.s;

/** The upstream's bodies as they come (timestamps as integers). */
export type MetafieldDto = z.input<typeof Metafield>;
export type EmployeeDto = z.input<typeof Employee>;
export type CustomerDto = z.input<typeof Customer>;
export type CheckDto = z.input<typeof Check>;

export type NamedDto = z.infer<typeof Named>;

/** What resolvers receive (codegen mappers): the records, read field by field. */
export type CheckRecord = RecordOf<typeof Check>;
export type EmployeeRecord = RecordOf<typeof Employee>;
export type EmployeeListRecord = RecordOf<typeof EmployeeList>;
export type MetafieldRecord = RecordOf<typeof Metafield>;
export type CustomerRecord = RecordOf<typeof Customer>;
export type CustomerAccountDetailRecord = RecordOf<typeof CustomerAccountDetail>;
export type NamedRecord = RecordOf<typeof Named>;
export type TaxRecord = RecordOf<typeof Tax>;
export type DeliveryRecord = RecordOf<typeof Delivery>;
export type CheckServiceChargeRecord = RecordOf<typeof CheckServiceCharge>;
export type CheckSummaryRecord = RecordOf<typeof CheckSummary>;
export type CheckDiscountRecord = RecordOf<typeof CheckDiscount>;
export type CheckPaymentRecord = RecordOf<typeof CheckPayment>;
export type CheckItemRecord = RecordOf<typeof CheckItem>;
export type CheckItemSummaryRecord = RecordOf<typeof CheckItemSummary>;
export type ItemRecord = RecordOf<typeof Item>;
export type CheckOfferRecord = RecordOf<typeof CheckOffer>;
