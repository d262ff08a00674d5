import { InputError } from '../../src/errors/InputError';
import { parseArgs } from '../../src/inputs/parse';
import { CreateCalendarReservationArgs, CreateReservationArgs } from '../../src/inputs/reservation';
import { thrownBy } from '../support/failures';

const CENTER = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
const CUSTOMER = '6fa459ea-ee8a-3ca4-894e-db77e160355e';

describe('CreateReservationArgs', () => {
  it('maps the input to the upstream body: snake_case names, the upstream date form, nulls left out', () => {
    const { input } = parseArgs(CreateReservationArgs, {
      input: { revenueCenterId: CENTER, customer: { firstName: ' Ada ', lastName: null }, guestCount: 4, date: '2026-11-21T19:30', estimatedDischargedAt: '2026-11-21T21:30', note: null },
    });
    expect(input).toEqual({
      revenue_center_id: CENTER,
      customer: { first_name: 'Ada', last_name: undefined, primary_phone_number: undefined, email: undefined },
      guest_count: 4,
      date: '2026-11-21 19:30',
      estimated_discharged_at: '2026-11-21 21:30',
    });
  });

  it.each([
    ['a revenue center that is no UUID', { revenueCenterId: 'x' }, 'input.revenueCenterId'],
    ['no guests', { guestCount: 0 }, 'input.guestCount'],
    ['a negative cover', { childCover: -1 }, 'input.childCover'],
    ['a discharge before the date', { estimatedDischargedAt: '2026-11-21T18:00' }, 'input.estimatedDischargedAt'],
    ['both customerId and customer', { customerId: CUSTOMER, customer: { firstName: 'Ada' } }, 'input.customer'],
    ['a customer without a first name', { customer: { firstName: '  ' } }, 'input.customer.firstName'],
    ['a malformed e-mail', { customer: { firstName: 'Ada', email: 'ada@' } }, 'input.customer.email'],
  ])('refuses %s, naming the field', (_what, change, field) => {
    const input = { revenueCenterId: CENTER, date: '2026-11-21T19:30', ...change };
    expect(thrownBy(InputError, () => parseArgs(CreateReservationArgs, { input })).field).toBe(field);
  });
});

describe('CreateCalendarReservationArgs', () => {
  it('maps the input to the calendars body', () => {
    const { input } = parseArgs(CreateCalendarReservationArgs, {
      input: { revenueCenterId: CENTER, customerId: CUSTOMER, date: '2026-11-21T19:30', occupiedSeatCount: 0, isDining: true, tagIds: [CUSTOMER] },
    });
    expect(input).toMatchObject({ revenue_center_id: CENTER, customer_id: CUSTOMER, date: '2026-11-21 19:30', occupied_seat_count: 0, is_dining: true, tag_ids: [CUSTOMER] });
  });

  it.each([
    ['a tag that is no UUID', { tagIds: [CENTER, 'x'] }, 'input.tagIds[1]'],
    ['a discharge at the date itself', { estimatedDischargedAt: '2026-11-21T19:30' }, 'input.estimatedDischargedAt'],
    ['a negative seat count', { occupiedSeatCount: -2 }, 'input.occupiedSeatCount'],
  ])('refuses %s, naming the field', (_what, change, field) => {
    const input = { revenueCenterId: CENTER, date: '2026-11-21T19:30', ...change };
    expect(thrownBy(InputError, () => parseArgs(CreateCalendarReservationArgs, { input })).field).toBe(field);
  });
});
