import { SAMPLE } from '../../src/sandbox';
import { startStack, type Stack } from '../support/stack';

/** The sandbox refuses what a real reservation service refuses; the gateway says so in GraphQL names. */
describe('booking refusals through the gateway', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack.close());

  const mutation = `mutation($input: CreateReservationInput!) { createReservation(input: $input) { reservation { id } } }`;
  const book = (input: Record<string, unknown>) =>
    stack.gql(mutation, { input: { revenueCenterId: SAMPLE.laTerrazza.revenueCenterIds[0], customerId: SAMPLE.laTerrazza.customerId, guestCount: 2, ...input } });

  it('refuses a booking in the past as BAD_USER_INPUT on input.date', async () => {
    const res = await book({ date: '2020-06-01T19:30' });
    expect(res.body.data).toBeNull(); // mutation payloads are non-null (CONTRACT.md)
    expect(res.body.errors![0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.date', upstream: { service: 'reservation', status: 422, code: 803 } });
    expect(res.body.errors![0].message).toMatch(/: input\.date 2020-06-01 19:30 is in the past/);
  });

  it('refuses 400 guests as BAD_USER_INPUT on input.guestCount, naming the capacity', async () => {
    const res = await book({ date: `${SAMPLE.laTerrazza.busyDate(stack.sandbox.state)}T19:30`, guestCount: 400 });
    expect(res.body.errors![0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.guestCount', upstream: { status: 422, code: 804 } });
    expect(res.body.errors![0].message).toMatch(/input\.guestCount 400 is beyond the capacity of Main Dining \(48 seats\)/);
    expect(res.body.errors![0].message).not.toMatch(/guest_count/);
  });
});
