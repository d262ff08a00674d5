import { z } from 'zod';
import { toUpstreamLocalDateTime } from '../scalars';
import type { OffDayBodyDto } from '../upstreams/reservation/dto';
import { opt, uuidArg } from './parse';
import { localeTag } from './standards';

export const CreateOffDayArgs = z.object({
  input: z
    .object({
      revenueCenterId: uuidArg,
      childRevenueCenterIds: opt(z.array(uuidArg)),
      type: opt(z.number().int()),
      date: z.string(),
      endDate: opt(z.string()),
      activeForReservations: opt(z.boolean()),
      activeForOnline: opt(z.boolean()),
      activeForRequests: opt(z.boolean()),
      isNoteVisible: opt(z.boolean()),
      partial: opt(z.boolean()),
      startTime: opt(z.string()),
      endTime: opt(z.string()),
      days: opt(z.array(z.number().int().min(0, 'must not be negative'))),
      translations: opt(
        z.array(
          z.object({
            // The document shows en, tr, de and ru in use; any well-formed BCP 47 tag is a locale.
            locale: localeTag,
            text: z.string().max(2000),
          }),
        ),
      ),
    })
    .superRefine((v, ctx) => {
      if (v.endDate && v.endDate < v.date) ctx.addIssue({ code: 'custom', path: ['endDate'], message: 'must not be before date' });
      if (v.partial && (!v.startTime || !v.endTime)) {
        ctx.addIssue({ code: 'custom', path: [v.startTime ? 'endTime' : 'startTime'], message: 'is required when partial is true' });
      }
      if (v.startTime && v.endTime && v.endTime <= v.startTime) ctx.addIssue({ code: 'custom', path: ['endTime'], message: 'must be after startTime' });
    })
    .transform(
      (v): OffDayBodyDto => ({
        revenue_center_id: v.revenueCenterId,
        child_revenue_center_ids: v.childRevenueCenterIds,
        type: v.type,
        date: toUpstreamLocalDateTime(v.date),
        end_date: v.endDate && toUpstreamLocalDateTime(v.endDate),
        active_for_reservations: v.activeForReservations,
        active_for_online: v.activeForOnline,
        active_for_requests: v.activeForRequests,
        is_note_visible: v.isNoteVisible,
        partial: v.partial,
        start_time: v.startTime,
        end_time: v.endTime,
        days: v.days,
        translations: v.translations,
      }),
    ),
});
