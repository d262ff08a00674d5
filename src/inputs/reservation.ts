import { z } from 'zod';
import { toUpstreamLocalDateTime } from '../scalars';
import type { CalendarReservationBodyDto, CreateReservationBodyDto } from '../upstreams/reservation/dto';
import { count, opt, positiveInt, uuidArg } from './parse';

/** `estimatedDischargedAt` after `date`, both canonical `YYYY-MM-DDTHH:MM` strings (which sort as time). */
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

export const CreateReservationArgs = z.object({
  input: z
    .object({
      revenueCenterId: uuidArg,
      customerId: opt(uuidArg),
      customer: opt(customerInput),
      tableId: opt(uuidArg),
      tableIds: opt(z.array(uuidArg)),
      guestCount: opt(positiveInt),
      date: z.string(),
      estimatedDischargedAt: opt(z.string()),
      note: opt(z.string().max(2000)),
      maleCover: opt(count),
      femaleCover: opt(count),
      childCover: opt(count),
      makeAReservation: opt(z.boolean()),
      isDraft: opt(z.boolean()),
    })
    .superRefine(dischargeAfterDate)
    .superRefine((v, ctx) => {
      if (v.customerId && v.customer) ctx.addIssue({ code: 'custom', path: ['customer'], message: 'give either customerId or customer, not both' });
    })
    .transform(
      (v): CreateReservationBodyDto => ({
        revenue_center_id: v.revenueCenterId,
        customer_id: v.customerId,
        customer: v.customer && {
          first_name: v.customer.firstName,
          last_name: v.customer.lastName,
          primary_phone_number: v.customer.primaryPhoneNumber,
          email: v.customer.email,
        },
        table_id: v.tableId,
        table_ids: v.tableIds,
        guest_count: v.guestCount,
        date: toUpstreamLocalDateTime(v.date),
        estimated_discharged_at: v.estimatedDischargedAt && toUpstreamLocalDateTime(v.estimatedDischargedAt),
        note: v.note,
        male_cover: v.maleCover,
        female_cover: v.femaleCover,
        child_cover: v.childCover,
        make_a_reservation: v.makeAReservation,
        is_draft: v.isDraft,
      }),
    ),
});

export const CreateCalendarReservationArgs = z.object({
  input: z
    .object({
      revenueCenterId: uuidArg,
      tableId: opt(uuidArg),
      reservationRequestId: opt(uuidArg),
      customerId: opt(uuidArg),
      date: z.string(),
      estimatedDischargedAt: opt(z.string()),
      note: opt(z.string().max(2000)),
      guestCount: opt(positiveInt),
      arrivalState: opt(z.number().int()),
      occupiedSeatCount: opt(count),
      sourceDetail: opt(z.string().max(200)),
      isDining: opt(z.boolean()),
      status: opt(z.number().int()),
      femaleCover: opt(count),
      maleCover: opt(count),
      childCover: opt(count),
      hasProvisionConfirmation: opt(z.boolean()),
      hotelRoomNumber: opt(z.string().max(50)),
      makeAReservation: opt(z.boolean()),
      transferStatus: opt(z.boolean()),
      allergenOrIntolerance: opt(z.boolean()),
      requiresPaymentRequest: opt(z.boolean()),
      tagIds: opt(z.array(uuidArg)),
    })
    .superRefine(dischargeAfterDate)
    .transform(
      (v): CalendarReservationBodyDto => ({
        revenue_center_id: v.revenueCenterId,
        table_id: v.tableId,
        reservation_request_id: v.reservationRequestId,
        customer_id: v.customerId,
        date: toUpstreamLocalDateTime(v.date),
        estimated_discharged_at: v.estimatedDischargedAt && toUpstreamLocalDateTime(v.estimatedDischargedAt),
        note: v.note,
        guest_count: v.guestCount,
        arrival_state: v.arrivalState,
        occupied_seat_count: v.occupiedSeatCount,
        source_detail: v.sourceDetail,
        is_dining: v.isDining,
        status: v.status,
        female_cover: v.femaleCover,
        male_cover: v.maleCover,
        child_cover: v.childCover,
        has_provision_confirmation: v.hasProvisionConfirmation,
        hotel_room_number: v.hotelRoomNumber,
        make_a_reservation: v.makeAReservation,
        transfer_status: v.transferStatus,
        allergen_or_intolerance: v.allergenOrIntolerance,
        requires_payment_request: v.requiresPaymentRequest,
        tag_ids: v.tagIds,
      }),
    ),
});


