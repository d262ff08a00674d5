import { z } from 'zod';
import { CalendarReservationBody, CreateReservationBody, OffDayBody, PaymentRequestBody } from '../upstreams/reservation/dto';
import { count, localDateTime, opt, positiveInt, snakeCased, uuidArg } from './parse';
import { amountDigitsIssue, currencyCode, localeTag } from './standards';

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

export const CreateOffDayArgs = z.object({
  input: z
    .object({
      revenueCenterId: uuidArg,
      childRevenueCenterIds: opt(z.array(uuidArg)),
      type: opt(z.number().int()),
      date: localDateTime,
      endDate: opt(localDateTime),
      activeForReservations: opt(z.boolean()),
      activeForOnline: opt(z.boolean()),
      activeForRequests: opt(z.boolean()),
      isNoteVisible: opt(z.boolean()),
      partial: opt(z.boolean()),
      startTime: opt(z.string()),
      endTime: opt(z.string()),
      days: opt(z.array(z.number().int().min(0, 'must not be negative'))),
      // The document shows en, tr, de and ru in use; any well-formed BCP 47 tag is a locale.
      translations: opt(z.array(z.object({ locale: localeTag, text: z.string().max(2000) }))),
    })
    .superRefine((v, ctx) => {
      if (v.endDate && v.endDate < v.date) ctx.addIssue({ code: 'custom', path: ['endDate'], message: 'must not be before date' });
      if (v.partial && (!v.startTime || !v.endTime)) {
        ctx.addIssue({ code: 'custom', path: [v.startTime ? 'endTime' : 'startTime'], message: 'is required when partial is true' });
      }
      if (v.startTime && v.endTime && v.endTime <= v.startTime) ctx.addIssue({ code: 'custom', path: ['endTime'], message: 'must be after startTime' });
    })
    .transform(snakeCased)
    .pipe(OffDayBody),
});

export const UpdatePaymentRequestArgs = z.object({
  input: z
    .object({
      id: uuidArg,
      // A canonical decimal string from the Decimal scalar; the upstream takes a JSON number (CONTRACT.md).
      amount: opt(z.string().refine((s) => Number(s) > 0, 'must be greater than 0')),
      currency: opt(currencyCode),
      phoneNumber: opt(z.string().regex(/^\+?\d{8,15}$/, 'must be digits with the country prefix').transform((p) => p.replace(/^\+/, ''))),
      email: opt(z.email('must be an e-mail address')),
      sendEmail: opt(z.boolean()),
      sendSms: opt(z.boolean()),
      smsContent: opt(z.string().max(1000)),
      note: opt(z.string().max(2000)),
      expirationTime: opt(z.number().int().min(1, 'must be greater than 0')),
      language: opt(z.string().regex(/^[A-Z]{2}$/, 'must be an upper-case language code such as EN')),
    })
    .superRefine((v, ctx) => {
      const digits = v.amount === undefined ? undefined : amountDigitsIssue(v.amount, v.currency);
      if (digits) ctx.addIssue({ code: 'custom', path: ['amount'], message: digits });
      if (v.sendEmail && !v.email) ctx.addIssue({ code: 'custom', path: ['email'], message: 'is required when sendEmail is true' });
      if (v.sendSms && !v.phoneNumber) ctx.addIssue({ code: 'custom', path: ['phoneNumber'], message: 'is required when sendSms is true' });
    })
    .transform(({ amount, ...v }) => snakeCased({ ...v, amount: amount === undefined ? undefined : Number(amount) }))
    .pipe(PaymentRequestBody),
});
