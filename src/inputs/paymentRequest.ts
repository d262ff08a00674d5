import { z } from 'zod';
import { PaymentRequestBody } from '../upstreams/reservation/dto';
import { opt, snakeCased, uuidArg } from './parse';
import { amountDigitsIssue, currencyCode } from './standards';

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
