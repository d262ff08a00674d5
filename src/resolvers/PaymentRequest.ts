import type { PaymentRequestResolvers } from '../generated/graphql';

export const PaymentRequest: PaymentRequestResolvers = {
  // The upstream takes the amount as a JSON number; the contract shows money as a Decimal string.
  amount: (p) => (p.amount === undefined ? null : p.amount.toFixed(Math.max(2, decimals(p.amount)))),
};

function decimals(n: number): number {
  return (String(n).split('.')[1] ?? '').length;
}
