import { z } from 'zod';
import { PaginationMeta, dateString, moneyString, posTimestamp, uuid } from '../schemas';

/** Zod schemas of POS response bodies (pos-service.md, "Resources and their fields"). See ../schemas.ts for the policy. */

const Named = z.object({ id: uuid, name: z.string().nullable() });

export const Metafield = z.object({
  id: uuid,
  key: z.string().nullable(),
  value: z.string().nullable(),
  value_type: z.string().nullable(),
  updated_at: posTimestamp.nullable(),
});
export type MetafieldDto = z.infer<typeof Metafield>;

export const Employee = z.object({
  id: uuid,
  first_name: z.string().nullable(),
  last_name: z.string().nullable(),
  phone_number: z.string().nullable(),
  registration_no: z.string().nullable(),
  property_id: uuid.nullable(),
  metafields: z.array(Metafield),
});
export type EmployeeDto = z.infer<typeof Employee>;

export const Tax = z.object({ id: uuid, rate: z.number().int().nullable(), name: z.string().nullable() });
export type TaxDto = z.infer<typeof Tax>;

export const Customer = z.object({
  id: uuid,
  first_name: z.string().nullable(),
  last_name: z.string().nullable(),
  phone_number: z.string().nullable(),
  email: z.string().nullable(),
  gender: z.string().nullable(),
  enterprise_id: uuid.nullable(),
  customer_discount_id: uuid.nullable(),
  created_at: posTimestamp.nullable(),
  updated_at: posTimestamp.nullable(),
  account_detail: z
    .object({
      checks_count: z.number().int().nullable(),
      checks_paid_amount: z.number().int().nullable(),
      total_current_account: z.number().int().nullable(),
      paid_current_account: z.number().int().nullable(),
      remaining_current_account: z.number().int().nullable(),
    })
    .nullable(),
  tags: z.array(Named),
  external_id: z.string().nullable(),
  metafields: z.array(Metafield),
});
export type CustomerDto = z.infer<typeof Customer>;

export const Delivery = z.object({
  address: z.string().nullable(),
  address_id: uuid.nullable(),
  recipient: z.string().nullable(),
  payment_names: z.array(z.string()).nullable(),
});

export const CheckServiceCharge = z.object({
  id: uuid,
  service_charge_id: uuid.nullable(),
  business_date: dateString.nullable(),
  amount: moneyString.nullable(),
  tax_amount: moneyString.nullable(),
  net_amount: moneyString.nullable(),
  tax: Tax.nullable(),
});

export const CheckSummary = z.object({
  original_items_amount: moneyString.nullable(),
  original_taxes_amount: moneyString.nullable(),
  complimentaries_amount: moneyString.nullable(),
  discounts_amount: moneyString.nullable(),
  taxes_amount: moneyString.nullable(),
  service_charge_amount: moneyString.nullable(),
  paid_amount: moneyString.nullable(),
  unpaid_amount: moneyString.nullable(),
  paid_service_charge_amount: moneyString.nullable(),
  total_amount: moneyString.nullable(),
  base_amount: moneyString.nullable(),
  offer_amount: moneyString.nullable(),
});

export const CheckDiscount = z.object({
  id: uuid,
  business_date: dateString.nullable(),
  source: z.string().nullable(),
  value: moneyString.nullable(),
  discount_amount: moneyString.nullable(),
  discount_id: uuid.nullable(),
  name: z.string().nullable(),
  type: z.string().nullable(),
  annotation: z.string().nullable(),
});

export const CheckPayment = z.object({
  id: uuid,
  business_date: dateString.nullable(),
  payment_type_id: uuid.nullable(),
  paid_amount: moneyString.nullable(),
  device: Named.nullable(),
  extras: z.record(z.string(), z.unknown()).nullable(),
});

export const CheckItem = z.object({
  id: uuid,
  parent_check_item_id: z.string().nullable(),
  reason_id: z.string().nullable(),
  business_date: dateString.nullable(),
  status: z.string().nullable(),
  payment_status: z.string().nullable(),
  complimentary: z.boolean().nullable(),
  unit_type: z.string().nullable(),
  quantity: moneyString.nullable(),
  notes: z.array(z.string()).nullable(),
  is_combo: z.boolean().nullable(),
  summary: z
    .object({
      discount_amount: moneyString.nullable(),
      tax_amount: moneyString.nullable(),
      total_amount: moneyString.nullable(),
      original_amount: moneyString.nullable(),
      original_tax_amount: moneyString.nullable(),
    })
    .nullable(),
  tax: Tax.nullable(),
  item: z.object({ id: uuid, name: z.string().nullable(), type: z.string().nullable(), source_id: z.string().nullable() }).nullable(),
});

export const CheckOffer = z.object({
  id: uuid,
  offer_id: uuid.nullable(),
  name: z.string().nullable(),
  value: z.string().nullable(),
});

export const Check = z.object({
  id: uuid,
  alias: z.string().nullable(),
  created_at: posTimestamp.nullable(),
  updated_at: posTimestamp.nullable(),
  closed_at: posTimestamp.nullable(),
  business_date: dateString.nullable(),
  female_cover: z.number().int().nullable(),
  male_cover: z.number().int().nullable(),
  child_cover: z.number().int().nullable(),
  note: z.string().nullable(),
  sequence: z.number().int().nullable(),
  sequential_id: z.number().int().nullable(),
  status: z.string().nullable(),
  delivery_status: z.string().nullable(),
  property_id: uuid.nullable(),
  revenue_center: Named.nullable(),
  shift_id: uuid.nullable(),
  employee: Employee.nullable(),
  table: Named.nullable(),
  sales_channel: Named.nullable(),
  customer: Customer.nullable(),
  delivery: Delivery.nullable(),
  extras: z.record(z.string(), z.unknown()).nullable(),
  check_service_charge: CheckServiceCharge.nullable(),
  summary: CheckSummary.nullable(),
  check_discounts: z.array(CheckDiscount),
  check_payments: z.array(CheckPayment),
  check_items: z.array(CheckItem),
  check_offers: z.array(CheckOffer),
});
export type CheckDto = z.infer<typeof Check>;
export type NamedDto = z.infer<typeof Named>;
export type DeliveryDto = z.infer<typeof Delivery>;
export type CheckServiceChargeDto = z.infer<typeof CheckServiceCharge>;
export type CheckSummaryDto = z.infer<typeof CheckSummary>;
export type CheckDiscountDto = z.infer<typeof CheckDiscount>;
export type CheckPaymentDto = z.infer<typeof CheckPayment>;
export type CheckItemDto = z.infer<typeof CheckItem>;
export type CheckOfferDto = z.infer<typeof CheckOffer>;

export const EmployeeList = z.object({ meta: PaginationMeta, employees: z.array(Employee) });
export type EmployeeListDto = z.infer<typeof EmployeeList>;
