import { z } from 'zod';
import { OffDayBody } from '../upstreams/reservation/dto';
import { localDateTime, opt, snakeCased, uuidArg } from './parse';
import { localeTag } from './standards';

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
