import { OffDay, PaymentRequest } from '../../src/resolvers';
import { resolveField } from '../support/resolvers';

const CENTER = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';

describe('OffDay', () => {
  it('gives the upstream local dates in the contract form, and null for an absent end date', () => {
    const body = { revenue_center_id: CENTER, date: '2026-12-24 00:00' };
    expect(resolveField(OffDay.date, body)).toBe('2026-12-24T00:00');
    expect(resolveField(OffDay.endDate, body)).toBeNull();
    expect(resolveField(OffDay.endDate, { ...body, end_date: '2026-12-26 00:00' })).toBe('2026-12-26T00:00');
  });
});

describe('PaymentRequest', () => {
  it.each([
    [125.5, '125.50'],
    [100, '100.00'],
    [0.125, '0.125'],
  ])('shows the amount %p as the Decimal %p, at least two decimals', (amount, decimal) => {
    expect(resolveField(PaymentRequest.amount, { id: CENTER, amount })).toBe(decimal);
  });

  it('is null when the request set no amount', () => {
    expect(resolveField(PaymentRequest.amount, { id: CENTER })).toBeNull();
  });
});
