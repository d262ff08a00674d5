import { z } from 'zod';
import type { RecordOf } from '../record';
import { PaginationMeta, int, jsonObject, uuid, uuidList } from '../schemas';
import { CALENDAR_RESPONSE_KEY, RESERVATION_READINGS, blankWhenUntied } from './assumptions';

/**
 * Reservation-service bodies (reservation-service.md, "Resources and their fields"); responses read as ../schemas.ts
 * says. Request bodies: every field optional but those our inputs require (the document does not say which are).
 */

/** `YYYY-MM-DD HH:MM`, the service's request date form. */
const upstreamLocalDateTime = z.string().regex(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/);
const upstreamLocalTime = z.string().regex(/^\d{2}:\d{2}$/);

export const ReservationCustomer = z.object({
  id: uuid,
  first_name: z.string(),
  last_name: z.string(),
  nickname: z.string().nullable(),
  is_anonym: z.boolean(),
  primary_phone_number: z.string(),
  type_name: z.string(),
});

/** The record's `check`: "object or null" in the document; only its `id` is relied on (it links to POS). */
export const ReservationCheckRef = z.looseObject({ id: uuid });

const { dateTime, tableNames } = RESERVATION_READINGS;

export const Reservation = z.object({
  id: uuid,
  type: z.string(),
  status: z.string(),
  date: dateTime,
  estimated_discharged_at: dateTime,
  discharged_at: dateTime.nullable(),
  created_at: dateTime,
  created_by: z.string(),
  assigned_at: dateTime.nullable(),
  guest_count: int,
  occupied_seat_count: int,
  male_cover: int,
  female_cover: int,
  child_cover: int,
  note: z.string(),
  hotel_room_number: z.string(),
  revenue_center_id: uuid,
  child_revenue_center_id: uuid.nullable(),
  store_id: uuid,
  table_id: blankWhenUntied(uuid),
  table_ids: uuidList,
  table_names: blankWhenUntied(tableNames),
  customer: blankWhenUntied(ReservationCustomer),
  check: ReservationCheckRef.nullable(),
  reservation_payment: jsonObject.nullable(),
  public_url: z.string(),
  is_draft: z.boolean(),
});
export type ReservationDto = z.infer<typeof Reservation>;

export const ReservationEnvelope = z.object({ reservation: Reservation });
/** The calendar operation's answer, under the key assumed in ./assumptions.ts. */
export const CalendarEnvelope = z.object({ [CALENDAR_RESPONSE_KEY]: Reservation });
export const ReservationList = z.object({ reservations: z.array(Reservation), meta: PaginationMeta });
export type ReservationListDto = z.infer<typeof ReservationList>;

/** What resolvers receive (codegen mappers): the records, read field by field. */
export type ReservationRecord = RecordOf<typeof Reservation>;
export type ReservationCustomerRecord = RecordOf<typeof ReservationCustomer>;
export type ReservationListRecord = RecordOf<typeof ReservationList>;

/** The fields both reservation-creating bodies share. */
const ReservationBodyBase = z.object({
  revenue_center_id: uuid,
  customer_id: uuid.optional(),
  table_id: uuid.optional(),
  guest_count: z.number().int().optional(),
  date: upstreamLocalDateTime,
  estimated_discharged_at: upstreamLocalDateTime.optional(),
  note: z.string().optional(),
  male_cover: z.number().int().optional(),
  female_cover: z.number().int().optional(),
  child_cover: z.number().int().optional(),
  make_a_reservation: z.boolean().optional(),
});

export const CreateReservationBody = ReservationBodyBase.extend({
  customer: z
    .object({
      first_name: z.string(),
      last_name: z.string().optional(),
      primary_phone_number: z.string().optional(),
      email: z.string().optional(),
    })
    .optional(),
  table_ids: z.array(uuid).optional(),
  is_draft: z.boolean().optional(),
});
export type CreateReservationBodyDto = z.infer<typeof CreateReservationBody>;

export const CalendarReservationBody = ReservationBodyBase.extend({
  reservation_request_id: uuid.optional(),
  arrival_state: z.number().int().optional(),
  occupied_seat_count: z.number().int().optional(),
  source_detail: z.string().optional(),
  is_dining: z.boolean().optional(),
  status: z.number().int().optional(),
  has_provision_confirmation: z.boolean().optional(),
  hotel_room_number: z.string().optional(),
  transfer_status: z.boolean().optional(),
  allergen_or_intolerance: z.boolean().optional(),
  requires_payment_request: z.boolean().optional(),
  tag_ids: z.array(uuid).optional(),
});
export type CalendarReservationBodyDto = z.infer<typeof CalendarReservationBody>;

export const OffDayBody = z.object({
  revenue_center_id: uuid,
  child_revenue_center_ids: z.array(uuid).optional(),
  type: z.number().int().optional(),
  date: upstreamLocalDateTime,
  end_date: upstreamLocalDateTime.optional(),
  active_for_reservations: z.boolean().optional(),
  active_for_online: z.boolean().optional(),
  active_for_requests: z.boolean().optional(),
  is_note_visible: z.boolean().optional(),
  partial: z.boolean().optional(),
  start_time: upstreamLocalTime.optional(),
  end_time: upstreamLocalTime.optional(),
  days: z.array(z.number().int()).optional(),
  // `locale`: the document shows en, tr, de, ru in use; any BCP 47 tag the input accepted (src/inputs/standards.ts).
  translations: z.array(z.object({ locale: z.string().min(1), text: z.string() })).optional(),
});
export type OffDayBodyDto = z.infer<typeof OffDayBody>;

export const PaymentRequestBody = z.object({
  id: uuid,
  amount: z.number().positive().optional(),
  currency: z.string().optional(),
  phone_number: z.string().optional(),
  email: z.string().optional(),
  send_email: z.boolean().optional(),
  send_sms: z.boolean().optional(),
  sms_content: z.string().optional(),
  note: z.string().optional(),
  expiration_time: z.number().int().positive().optional(),
  language: z.string().optional(),
});
export type PaymentRequestBodyDto = z.infer<typeof PaymentRequestBody>;
