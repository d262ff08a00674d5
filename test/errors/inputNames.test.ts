import { UpstreamError } from '../../src/errors/UpstreamError';
import { namedAfterInput, upstreamErrorField, upstreamErrorMessage } from '../../src/errors/upstreamErrorCode';
import { CreateReservationArgs } from '../../src/inputs/reservation';
import { upstreamFieldPaths } from '../../src/inputs/parse';

const FIELDS = upstreamFieldPaths(CreateReservationArgs);
const refusal = (upstreamMessage: string, status = 422) => new UpstreamError('reservation', 'status', { status, upstreamCode: 801, upstreamMessage });

describe('namedAfterInput', () => {
  it.each([
    ['revenue_center_id is not a revenue center of this store', 'input.revenueCenterId is not a revenue center of this store', 'input.revenueCenterId'],
    ['date must be a date of the form YYYY-MM-DD HH:MM', 'input.date must be a date of the form YYYY-MM-DD HH:MM', 'input.date'],
    ['estimated_discharged_at must not be before date', 'input.estimatedDischargedAt must not be before input.date', 'input.estimatedDischargedAt'],
    ['customer.first_name is required', 'input.customer.firstName is required', 'input.customer.firstName'],
    ['customer_id or customer is required', 'input.customerId or input.customer is required', 'input.customerId'],
    ['customer_id is not a customer of this store', 'input.customerId is not a customer of this store', 'input.customerId'],
  ])('says "%s" in GraphQL names', (said, message, field) => {
    const named = namedAfterInput(refusal(said), FIELDS);
    expect(upstreamErrorMessage(named)).toBe(`The reservation service refused the request (HTTP 422): ${message}.`);
    expect(upstreamErrorField(named)).toBe(field);
  });

  it('leaves a message that names no field as it was, without a field', () => {
    const err = refusal('The restaurant is closed that evening');
    expect(namedAfterInput(err, FIELDS)).toBe(err);
  });

  it('names nothing in a failure that is not about the input', () => {
    const err = new UpstreamError('reservation', 'status', { status: 500, upstreamMessage: 'revenue_center_id lookup failed' });
    const named = namedAfterInput(err, FIELDS);
    expect(upstreamErrorField(named)).toBeUndefined();
    expect(upstreamErrorMessage(named)).toContain('revenue_center_id');
  });

  it('keeps what the error was: status, code and the contract code', () => {
    const named = namedAfterInput(refusal('guest_count must be a positive integer', 400), FIELDS);
    expect(named).toBeInstanceOf(UpstreamError);
    expect({ status: named.status, upstreamCode: named.upstreamCode, failure: named.failure }).toEqual({ status: 400, upstreamCode: 801, failure: 'status' });
    expect(upstreamErrorField(named)).toBe('input.guestCount');
  });
});
