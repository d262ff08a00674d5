import { z } from 'zod';
import { CalendarReservationBody, CreateReservationBody } from '../upstreams/reservation/dto';
import { count, localDateTime, opt, positiveInt, snakeCased, uuidArg } from './parse';

/** `estimatedDischargedAt` after `date`, both in the upstream's `YYYY-MM-DD HH:MM` (which sorts as time). */
function dischargeAfterDate(v: { date: string; estimatedDischargedAt?: string | null }, ctx: z.RefinementCtx) {
  if (v.estimatedDischargedAt && v.estimatedDischargedAt <= v.date) {
    ctx.addIssue({ code: 'custom', path: ['estimatedDischargedAt'], message: 'must be after date' });
  }
}

const customerInput = z.object({
  firstName: z.string().trim().min(1, 'must not be empty').max(100),
  lastName: opt(z.string().max(100)),
  primaryPhoneNumber: opt(z.string().regex(/^\+?[0-9 ()-]{6,20}$/, 'must be a phone number')),
  email: opt(z.email('must be an e-mail address')),
});

/** The fields both reservation-creating inputs share. */
const reservationFields = {
  revenueCenterId: uuidArg,
  customerId: opt(uuidArg),
  tableId: opt(uuidArg),
  guestCount: opt(positiveInt),
  date: localDateTime,
  estimatedDischargedAt: opt(localDateTime),
  note: opt(z.string().max(2000)),
  maleCover: opt(count),
  femaleCover: opt(count),
  childCover: opt(count),
  makeAReservation: opt(z.boolean()),
};

export const CreateReservationArgs = z.object({
  input: z
    .object({
      ...reservationFields,
      customer: opt(customerInput),
      tableIds: opt(z.array(uuidArg)),
      isDraft: opt(z.boolean()),
    })
    .superRefine(dischargeAfterDate)
    .superRefine((v, ctx) => {
      if (v.customerId && v.customer) ctx.addIssue({ code: 'custom', path: ['customer'], message: 'give either customerId or customer, not both' });
    })
    .transform(snakeCased)
    .pipe(CreateReservationBody),
});

export const CreateCalendarReservationArgs = z.object({
  input: z
    .object({
      ...reservationFields,
      reservationRequestId: opt(uuidArg),
      arrivalState: opt(z.number().int()),
      occupiedSeatCount: opt(count),
      sourceDetail: opt(z.string().max(200)),
      isDining: opt(z.boolean()),
      status: opt(z.number().int()),
      hasProvisionConfirmation: opt(z.boolean()),
      hotelRoomNumber: opt(z.string().max(50)),
      transferStatus: opt(z.boolean()),
      allergenOrIntolerance: opt(z.boolean()),
      requiresPaymentRequest: opt(z.boolean()),
      tagIds: opt(z.array(uuidArg)),
    })
    .superRefine(dischargeAfterDate)
    .transform(snakeCased)
    .pipe(CalendarReservationBody),
});
