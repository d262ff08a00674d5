import { formatMoney, taxPortion } from '../money';
import type { CheckItemSummary, CheckSummary } from '../records';

/** One check line before it becomes a CheckItem: gross unit price (tax included) times quantity. */
export interface Line {
  priceCents: number;
  quantity: number;
  complimentary: boolean;
}

/** Every amount of a check in cents, so the written strings always add up. */
export interface CheckTotals {
  originalItems: number;
  originalTaxes: number;
  complimentaries: number;
  discounts: number;
  offers: number;
  /** Items after complimentaries, discounts and offers. */
  base: number;
  serviceCharge: number;
  total: number;
  taxes: number;
}

export function lineSummary(line: Line, taxRate: number): CheckItemSummary {
  const original = line.priceCents * line.quantity;
  const total = line.complimentary ? 0 : original;
  return {
    // Reductions are check-level in the sample; a complimentary line is counted in complimentaries_amount.
    discount_amount: formatMoney(0),
    tax_amount: formatMoney(taxPortion(total, taxRate)),
    total_amount: formatMoney(total),
    original_amount: formatMoney(original),
    original_tax_amount: formatMoney(taxPortion(original, taxRate)),
  };
}

/** Discount and offer are capped so the base never goes below zero. */
export function checkTotals(
  lines: readonly Line[], wanted: { discount: number; offer: number }, serviceChargePercent: number | null, taxRate: number,
): CheckTotals {
  const originalItems = sum(lines.map((l) => l.priceCents * l.quantity));
  const originalTaxes = sum(lines.map((l) => taxPortion(l.priceCents * l.quantity, taxRate)));
  const complimentaries = sum(lines.filter((l) => l.complimentary).map((l) => l.priceCents * l.quantity));
  const discounts = Math.min(wanted.discount, originalItems - complimentaries);
  const offers = Math.min(wanted.offer, originalItems - complimentaries - discounts);
  const base = originalItems - complimentaries - discounts - offers;
  const serviceCharge = serviceChargePercent === null ? 0 : Math.round((base * serviceChargePercent) / 100);
  const total = base + serviceCharge;
  return { originalItems, originalTaxes, complimentaries, discounts, offers, base, serviceCharge, total, taxes: taxPortion(total, taxRate) };
}

export function checkSummary(totals: CheckTotals, paid: number): CheckSummary {
  // The service charge counts as paid in proportion to what was paid of the whole.
  const paidServiceCharge = totals.total === 0 ? 0 : Math.round((totals.serviceCharge * paid) / totals.total);
  return {
    original_items_amount: formatMoney(totals.originalItems),
    original_taxes_amount: formatMoney(totals.originalTaxes),
    complimentaries_amount: formatMoney(totals.complimentaries),
    discounts_amount: formatMoney(totals.discounts),
    taxes_amount: formatMoney(totals.taxes),
    service_charge_amount: formatMoney(totals.serviceCharge),
    paid_amount: formatMoney(paid),
    unpaid_amount: formatMoney(totals.total - paid),
    paid_service_charge_amount: formatMoney(paidServiceCharge),
    total_amount: formatMoney(totals.total),
    base_amount: formatMoney(totals.base),
    offer_amount: formatMoney(totals.offers),
  };
}

function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0);
}
