import { BODY_IGNORED, ScopedCaller, recordReader, uuidSegment, type CallScope, type UpstreamHttp } from '../http';
import { CALENDAR_RESPONSE_KEY, RESERVATION_READ, RESERVATION_REQUIRED_HEADERS as REQUIRED } from './assumptions';
import {
  CalendarEnvelope,
  CalendarReservationBody,
  CreateReservationBody,
  OffDayBody,
  PaymentRequestBody,
  ReservationEnvelope,
  ReservationList,
  type CalendarReservationBodyDto,
  type CreateReservationBodyDto,
  type OffDayBodyDto,
  type PaymentRequestBodyDto,
  type ReservationListRecord,
  type ReservationRecord,
} from './dto';
import type { ServiceCredentials } from '../../credentials';

/**
 * The reservation service, for one client request: its credentials only, a typed method per operation. Answers are
 * records read field by field; an envelope's reservation without a usable id refuses the answer whole (../record.ts).
 */
export class ReservationClient {
  private readonly caller: ScopedCaller;

  constructor(
    http: UpstreamHttp,
    credentials: ServiceCredentials,
    private readonly scope: CallScope,
  ) {
    this.caller = new ScopedCaller(http, credentials, scope);
  }

  async createReservation(body: CreateReservationBodyDto): Promise<ReservationRecord> {
    const route = '/v1/reservations';
    const response = recordReader(ReservationEnvelope, 'reservation', route, this.scope);
    const res = await this.caller.call(REQUIRED.createReservation, { method: 'POST', route, path: route, body: CreateReservationBody.parse(body), response });
    return res.read('reservation');
  }

  /** Resolves null when the service answers without a body (the document does not show this response). */
  async createCalendarReservation(body: CalendarReservationBodyDto): Promise<ReservationRecord | null> {
    const route = '/api/v1/calendars';
    const response = recordReader(CalendarEnvelope, 'reservation', route, this.scope);
    const res = await this.caller.call(REQUIRED.createCalendarReservation, {
      method: 'POST',
      route,
      path: route,
      body: CalendarReservationBody.parse(body),
      response,
      onEmpty: () => null,
    });
    return res ? res.read(CALENDAR_RESPONSE_KEY) : null;
  }

  async createOffDay(body: OffDayBodyDto): Promise<void> {
    const route = '/api/v1/off-days';
    await this.caller.call(REQUIRED.createOffDay, { method: 'POST', route, path: route, body: OffDayBody.parse(body), ...BODY_IGNORED });
  }

  async updatePaymentRequest(body: PaymentRequestBodyDto): Promise<void> {
    const route = '/v1/reservation-payments';
    await this.caller.call(REQUIRED.updatePaymentRequest, { method: 'PATCH', route, path: route, body: PaymentRequestBody.parse(body), ...BODY_IGNORED });
  }

  async getReservation(id: string): Promise<ReservationRecord> {
    const route = '/v1/reservations/:id';
    const path = RESERVATION_READ.showPath(uuidSegment(id, 'id'));
    const res = await this.caller.call(REQUIRED.readReservations, { method: 'GET', route, path, response: recordReader(ReservationEnvelope, 'reservation', route, this.scope) });
    return res.read('reservation');
  }

  async listReservations(args: { date: string; revenueCenterId?: string; page: number; perPage: number }): Promise<ReservationListRecord> {
    if (args.revenueCenterId !== undefined) uuidSegment(args.revenueCenterId, 'revenueCenterId');
    const route = RESERVATION_READ.indexPath;
    return this.caller.call(REQUIRED.readReservations, {
      method: 'GET',
      route,
      path: route,
      query: { date: args.date, revenue_center_id: args.revenueCenterId, page: args.page, per_page: args.perPage },
      response: recordReader(ReservationList, 'reservation', route, this.scope),
    });
  }
}
