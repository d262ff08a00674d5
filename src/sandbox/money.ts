/** Money is kept in integer cents and written as the POS writes it: a string with two decimals. */
export function formatMoney(cents: number): string {
  if (!Number.isInteger(cents) || cents < 0) throw new Error(`formatMoney: expected non-negative integer cents, got ${cents}`);
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}

/** The tax contained in a tax-inclusive amount (European menu prices include tax). */
export function taxPortion(grossCents: number, ratePercent: number): number {
  return Math.round((grossCents * ratePercent) / (100 + ratePercent));
}
