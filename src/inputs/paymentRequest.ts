import { z } from 'zod';
import type { PaymentRequestBodyDto } from '../upstreams/reservation/dto';
import { opt, uuidArg } from './parse';
import { amountDigitsIssue, currencyCode } from './standards';

export const UpdatePaymentRequestArgs = z.object({
  input: z
    .object({
      id: uuidArg,
      // A canonical decimal string from the Decimal scalar; the upstream takes a JSON number (CONTRACT.md).
      amount: opt(z.string().refine((s) => Number(s) > 0, 'must be greater than 0')),
      currency: opt(currencyCode),
      phoneNumber: opt(z.string().regex(/^\+?\d{8,15}$/, 'must be digits with the country prefix')),
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
    .transform(
      (v): PaymentRequestBodyDto => ({
        id: v.id,
        amount: v.amount === undefined ? undefined : Number(v.amount),
        currency: v.currency,
        phone_number: v.phoneNumber?.replace(/^\+/, ''),
        email: v.email,
        send_email: v.sendEmail,
        send_sms: v.sendSms,
        sms_content: v.smsContent,
        note: v.note,
        expiration_time: v.expirationTime,
        language: v.language,
      }),
    ),
});
