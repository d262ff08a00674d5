import { z } from 'zod';

/**
 * Input rules from the standards, not from the upstream documents' samples: ISO 4217 currencies and minor units, BCP
 * 47 locales, both through `Intl` (ICU's data, shipped with Node), so the lists need no upkeep here.
 */

/** ISO 4217 codes of currencies in use (ICU leaves out funds and metals such as CLF and XAU). */
const CURRENCIES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'));

/** Digits after the decimal point of a currency's minor unit (ISO 4217): EUR 2, JPY 0, KWD 3. */
export function minorUnitsOf(currency: string): number {
  return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
}

/** The most minor-unit digits of any currency, made on first use: the bound on an amount without a currency. */
let mostMinorUnits: number | undefined;
const maxMinorUnits = (): number => (mostMinorUnits ??= Math.max(...[...CURRENCIES].map(minorUnitsOf)));

/** Significant digits after the point of a canonical decimal string: "12.50" → 1, "12.345" → 3, "1000.00" → 0. */
export function fractionDigits(decimal: string): number {
  const fraction = decimal.split('.')[1] ?? '';
  return fraction.replace(/0+$/, '').length;
}

export const currencyCode = z.string().refine((c) => CURRENCIES.has(c), 'must be an ISO 4217 currency code such as EUR');

/**
 * An amount may not be finer than its currency's minor unit ("12.345" EUR is refused). Without a currency in the
 * input the gateway does not know the payment request's own, so only the finest of any currency is refused.
 */
export function amountDigitsIssue(amount: string, currency: string | undefined): string | undefined {
  if (currency !== undefined && !CURRENCIES.has(currency)) return undefined; // the currency's own issue is reported
  const allowed = currency === undefined ? maxMinorUnits() : minorUnitsOf(currency);
  if (fractionDigits(amount) <= allowed) return undefined;
  const unit = allowed === 0 ? 'no decimal places' : `at most ${allowed} decimal place${allowed === 1 ? '' : 's'}`;
  return currency === undefined ? `must have ${unit} (no currency has finer minor units)` : `must have ${unit}: the minor unit of ${currency} (ISO 4217)`;
}

/** A well-formed BCP 47 language tag (`en`, `pt-BR`, `zh-Hant-TW`), sent upstream in its canonical form (`EN` → `en`). */
export const localeTag = z.string().transform((tag, ctx) => {
  try {
    return Intl.getCanonicalLocales(tag)[0];
  } catch {
    // RangeError: not well-formed
    ctx.addIssue({ code: 'custom', message: 'must be a BCP 47 language tag such as en or pt-BR' });
    return z.NEVER;
  }
});
