import { z } from 'zod';

/**
 * Input rules taken from the standards rather than from the samples in the upstream documents: ISO 4217 for
 * currencies and their minor units, BCP 47 for locales. Both through `Intl` (ICU's data, shipped with Node), so the
 * lists are the standards' own and need no upkeep here.
 */

/** ISO 4217 codes of currencies in use (ICU leaves out funds and metals such as CLF and XAU). */
const CURRENCIES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'));

/**
 * Digits after the decimal point of each currency's minor unit (ISO 4217: EUR 2, JPY 0, KWD 3), made on first use
 * (one `Intl.NumberFormat` per currency), so start-up does not pay for it.
 */
let minorUnits: ReadonlyMap<string, number> | undefined;
function minorUnitTable(): ReadonlyMap<string, number> {
  minorUnits ??= new Map(
    [...CURRENCIES].map((currency) => [currency, new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2]),
  );
  return minorUnits;
}

/** Digits after the decimal point of a currency's minor unit (ISO 4217): EUR 2, JPY 0, KWD 3. */
export function minorUnitsOf(currency: string): number {
  return minorUnitTable().get(currency) ?? 2;
}

/** The most minor-unit digits of any known currency: the bound on an amount whose currency is not given. */
let mostMinorUnits: number | undefined;
function maxMinorUnits(): number {
  return (mostMinorUnits ??= Math.max(...minorUnitTable().values()));
}

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
  const canonical = canonicalLocale(tag);
  if (canonical === undefined) {
    ctx.addIssue({ code: 'custom', message: 'must be a BCP 47 language tag such as en or pt-BR' });
    return z.NEVER;
  }
  return canonical;
});

function canonicalLocale(tag: string): string | undefined {
  try {
    const [canonical] = Intl.getCanonicalLocales(tag);
    return canonical;
  } catch {
    return undefined; // RangeError: not well-formed
  }
}
