import type { z } from 'zod';
import { CreateOffDayArgs } from '../../src/inputs/offDay';
import { UpdatePaymentRequestArgs } from '../../src/inputs/paymentRequest';
import { CreateCalendarReservationArgs, CreateReservationArgs } from '../../src/inputs/reservation';
import { upstreamFieldPaths } from '../../src/inputs/upstreamFieldPaths';
import { CalendarReservationBody, CreateReservationBody, OffDayBody, PaymentRequestBody } from '../../src/upstreams/reservation/dto';

describe('upstreamFieldPaths', () => {
  it('reads the GraphQL input path of each upstream field off the mapper, nested fields included', () => {
    const paths = upstreamFieldPaths(CreateReservationArgs);
    expect(paths.get('revenue_center_id')).toBe('input.revenueCenterId');
    expect(paths.get('guest_count')).toBe('input.guestCount');
    expect(paths.get('table_ids')).toBe('input.tableIds');
    expect(paths.get('date')).toBe('input.date');
    expect(paths.get('customer')).toBe('input.customer');
    expect(paths.get('customer.first_name')).toBe('input.customer.firstName');
    expect(paths.get('customer.primary_phone_number')).toBe('input.customer.primaryPhoneNumber');
    expect(upstreamFieldPaths(UpdatePaymentRequestArgs).get('expiration_time')).toBe('input.expirationTime');
    expect(upstreamFieldPaths(UpdatePaymentRequestArgs).get('amount')).toBe('input.amount');
  });

  // The upstream bodies are declared apart from the mappers (src/upstreams/reservation/dto.ts): every field of them is found.
  it.each<[string, z.ZodObject, z.ZodObject]>([
    ['createReservation', CreateReservationArgs, CreateReservationBody],
    ['createCalendarReservation', CreateCalendarReservationArgs, CalendarReservationBody],
    ['createOffDay', CreateOffDayArgs, OffDayBody],
    ['updatePaymentRequest', UpdatePaymentRequestArgs, PaymentRequestBody],
  ])('finds every upstream body field of %s', (_name, args, body) => {
    const paths = upstreamFieldPaths(args);
    expect(Object.keys(body.shape).filter((key) => !paths.has(key))).toEqual([]);
  });

  it('follows a rename the naming rule would not guess', async () => {
    const { z } = await import('zod');
    const args = z.object({ input: z.object({ guests: z.number(), when: z.string() }).transform((v) => ({ party_size: v.guests, date: v.when.replace('T', ' ') })) });
    expect([...upstreamFieldPaths(args)]).toEqual([['party_size', 'input.guests'], ['date', 'input.when']]);
  });
});
