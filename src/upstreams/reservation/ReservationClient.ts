import { BODY_IGNORED, ScopedCaller, recordReader, uuidSegment, type CallScope, type ClientRequest, type UpstreamHttp, type UpstreamRequest } from '../http';
import { CALENDAR_RESPONSE_KEY, RESERVATION_READ, RESERVATION_REQUIRED_HEADERS } from './assumptions';
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

type Operation = keyof typeof RESERVATION_REQUIRED_HEADERS;

/** The reservation service, for one client request: its credentials only, a typed method per operation. */
export class ReservationClient {
  private readonly caller: ScopedCaller;

  constructor(
    http: UpstreamHttp,
    credentials: ServiceCredentials,
    private readonly scope: CallScope,
  ) {
    this.caller = new ScopedCaller(http, credentials, scope);
  }

  // Answers are records read field by field; the envelope's reservation must be an object with a usable id, or the
  // answer is refused whole (../record.ts).
  async createReservation(body: CreateReservationBodyDto): Promise<ReservationRecord> {
    const route = '/v1/reservations';
    const res = await this.call('createReservation', { method: 'POST', route, path: route, body: CreateReservationBody.parse(body), response: recordReader(ReservationEnvelope, 'reservation', route, this.scope) });
    return res.read('reservation');
  }

  /** Resolves null when the service answers without a body (the document does not show this response). */
  async createCalendarReservation(body: CalendarReservationBodyDto): Promise<ReservationRecord | null> {
    const route = '/api/v1/calendars';
    const res = await this.call('createCalendarReservation', {
      method: 'POST',
      route,
      path: route,
      body: CalendarReservationBody.parse(body),
      response: recordReader(CalendarEnvelope, 'reservation', route, this.scope),
      onEmpty: () => null,
    });
    return res ? res.read(CALENDAR_RESPONSE_KEY) : null;
  }

  async createOffDay(body: OffDayBodyDto): Promise<void> {
    await this.call('createOffDay', { method: 'POST', route: '/api/v1/off-days', path: '/api/v1/off-days', body: OffDayBody.parse(body), ...BODY_IGNORED });
  }

  async updatePaymentRequest(body: PaymentRequestBodyDto): Promise<void> {
    await this.call('updatePaymentRequest', {
      method: 'PATCH',
      route: '/v1/reservation-payments',
      path: '/v1/reservation-payments',
      body: PaymentRequestBody.parse(body),
      ...BODY_IGNORED,
    });
  }

  async getReservation(id: string): Promise<ReservationRecord> {
    const path = RESERVATION_READ.showPath(uuidSegment(id, 'id'));
    const route = '/v1/reservations/:id';
    const res = await this.call('readReservations', { method: 'GET', route, path, response: recordReader(ReservationEnvelope, 'reservation', route, this.scope) });
    return res.read('reservation');
  }

  async listReservations(args: { date: string; revenueCenterId?: string; page: number; perPage: number }): Promise<ReservationListRecord> {
    if (args.revenueCenterId !== undefined) uuidSegment(args.revenueCenterId, 'revenueCenterId');
    const res = await this.call('readReservations', {
      method: 'GET',
      route: RESERVATION_READ.indexPath,
      path: RESERVATION_READ.indexPath,
      query: { date: args.date, revenue_center_id: args.revenueCenterId, page: args.page, per_page: args.perPage },
      response: recordReader(ReservationList, 'reservation', RESERVATION_READ.indexPath, this.scope),
    });
    return res;
  }

  private call<T>(operation: Operation, req: ClientRequest<UpstreamRequest<T>>): Promise<T> {
    return this.caller.call(RESERVATION_REQUIRED_HEADERS[operation], req);
  }
}
