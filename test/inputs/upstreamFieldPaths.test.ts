import type { z } from 'zod';
import { CreateCalendarReservationArgs, CreateOffDayArgs, CreateReservationArgs, UpdatePaymentRequestArgs } from '../../src/inputs/reservation';
import { upstreamFieldPaths } from '../../src/inputs/parse';
import { CalendarReservationBody, CreateReservationBody, OffDayBody, PaymentRequestBody } from '../../src/upstreams/reservation/dto';

describe('upstreamFieldPaths', () => {
  it('names the GraphQL input path of each upstream body field, nested fields included', () => {
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

  it.each<[string, z.ZodObject, z.ZodObject]>([
    ['createReservation', CreateReservationArgs, CreateReservationBody],
    ['createCalendarReservation', CreateCalendarReservationArgs, CalendarReservationBody],
    ['createOffDay', CreateOffDayArgs, OffDayBody],
    ['updatePaymentRequest', UpdatePaymentRequestArgs, PaymentRequestBody],
  ])('maps every upstream body field of %s to a field its input has', (_name, args, body) => {
    const paths = upstreamFieldPaths(args);
    const input = ((args.shape.input as z.ZodPipe).in as z.ZodPipe).in as z.ZodObject;
    const missing = Object.keys(body.shape).filter((key) => !Object.hasOwn(input.shape, paths.get(key)?.replace(/^input\./, '') ?? ''));
    expect(missing).toEqual([]);
  });
});
