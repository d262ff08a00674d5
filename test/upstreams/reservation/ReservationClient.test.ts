import { randomUUID } from 'node:crypto';
import { ServiceCredentials } from '../../../src/credentials';
import { InputError, MissingCredentialError } from '../../../src/errors/InputError';
import { UpstreamError } from '../../../src/errors/UpstreamError';
import type { ReservationDto, ReservationRecord } from '../../../src/upstreams/reservation/dto';
import { UpstreamRecord } from '../../../src/upstreams/record';
import { ReservationClient } from '../../../src/upstreams/reservation/ReservationClient';
import type { CreateReservationBodyDto } from '../../../src/upstreams/reservation/dto';
import { CLIENT_HEADERS, TRANSPORT_HEADERS, headerLookup, pageMeta, reservationRecord } from '../../support/fixtures';
import { INJECTIONS, GATEWAY_HEADERS, clientHarness } from '../../support/clientHarness';
import { sendJson } from '../../support/upstreamServer';

const RESERVATION_CREDENTIALS = ['reservation-access-token', 'authorization', 'employee_token', 'store_pin_code', 'slug_name'];
const h = clientHarness('reservation');

function client(headers: Readonly<Record<string, string>> = CLIENT_HEADERS): ReservationClient {
  return new ReservationClient(h.http, ServiceCredentials.from('reservation', headerLookup(headers)), h.scope());
}

function without(...names: string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(CLIENT_HEADERS).filter(([name]) => !names.includes(name)));
}

function createBody(): CreateReservationBodyDto {
  const tableId = randomUUID();
  return {
    revenue_center_id: randomUUID(),
    customer: { first_name: 'Can', last_name: 'Demir', primary_phone_number: '+905559998877', email: 'can@example.com' },
    table_id: tableId,
    table_ids: [tableId],
    guest_count: 4,
    date: '2026-11-21 19:30',
    estimated_discharged_at: '2026-11-21 21:30',
    note: 'birthday',
    male_cover: 2,
    female_cover: 1,
    child_cover: 1,
    make_a_reservation: true,
    is_draft: false,
  };
}

const calendarBody = () => ({ revenue_center_id: randomUUID(), table_id: randomUUID(), date: '2026-11-21 19:30', guest_count: 2, status: 1, tag_ids: [randomUUID()] });
const offDayBody = () => ({
  revenue_center_id: randomUUID(),
  child_revenue_center_ids: [randomUUID()],
  type: 1,
  date: '2026-12-31 00:00',
  end_date: '2027-01-01 23:59',
  partial: true,
  start_time: '10:00',
  end_time: '14:00',
  days: [1, 2],
  translations: [{ locale: 'en' as const, text: 'Closed for the holidays' }],
});
const paymentBody = () => ({ id: randomUUID(), amount: 125.5, currency: 'TRY', send_sms: true, expiration_time: 3600, language: 'en' });

/** The fields a test compares: a record's read through the schema, a fixture's as they are. */
function fieldsOf(r: ReservationRecord | ReservationDto) {
  if (!(r instanceof UpstreamRecord)) return { id: r.id, date: r.date, guest_count: r.guest_count, table_names: r.table_names, check: r.check?.id ?? null };
  return { id: r.read('id'), date: r.read('date'), guest_count: r.read('guest_count'), table_names: r.read('table_names'), check: r.read('check')?.read('id') ?? null };
}

describe('ReservationClient', () => {
  describe('createReservation', () => {
    it('posts the body to /v1/reservations and resolves the reservation', async () => {
      const reservation = reservationRecord();
      h.reply = (_req, res) => sendJson(res, 201, { reservation });
      const body = createBody();
      expect(fieldsOf(await client().createReservation(body))).toEqual(fieldsOf(reservation));
      const seen = h.onlyRequest();
      expect(seen.method).toBe('POST');
      expect(seen.url).toBe('/v1/reservations');
      expect(JSON.parse(seen.body)).toEqual(body);
    });

    it('refuses an empty answer as a bad response', async () => {
      h.reply = (_req, res) => sendJson(res, 201);
      await expect(client().createReservation(createBody())).rejects.toMatchObject({ service: 'reservation', failure: 'bad_response' });
    });

    it('refuses a reservation record without an id as a bad response', async () => {
      const { id: _id, ...noId } = reservationRecord();
      h.reply = (_req, res) => sendJson(res, 201, { reservation: noId });
      const err = await client().createReservation(createBody()).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UpstreamError);
      expect(err).toMatchObject({ failure: 'bad_response', status: 201 });
      expect((err as UpstreamError).detail).toMatch(/^field reservation\.id: /);
    });

    it('refuses without the Reservation-Access-Token and sends nothing', async () => {
      const err = await client(without('reservation-access-token')).createReservation(createBody()).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(MissingCredentialError);
      expect((err as MissingCredentialError).extensions).toEqual({ code: 'UNAUTHENTICATED', headers: ['reservation-access-token'] });
      expect(h.server.requests).toHaveLength(0);
    });

    it('refuses a body id that is not a UUID and sends nothing', async () => {
      await expect(client().createReservation({ ...createBody(), revenue_center_id: '../x' })).rejects.toThrow();
      expect(h.server.requests).toHaveLength(0);
    });
  });

  describe('createCalendarReservation', () => {
    it('posts the body to /api/v1/calendars and resolves null on an empty 201', async () => {
      h.reply = (_req, res) => sendJson(res, 201);
      const body = calendarBody();
      await expect(client().createCalendarReservation(body)).resolves.toBeNull();
      const seen = h.onlyRequest();
      expect(seen.method).toBe('POST');
      expect(seen.url).toBe('/api/v1/calendars');
      expect(JSON.parse(seen.body)).toEqual(body);
    });

    it('resolves the reservation when the answer carries one', async () => {
      const reservation = reservationRecord({ check: null });
      h.reply = (_req, res) => sendJson(res, 201, { reservation });
      const read = await client().createCalendarReservation(calendarBody());
      expect(read && fieldsOf(read)).toEqual(fieldsOf(reservation));
    });

    it('refuses without the four API-key headers and sends nothing', async () => {
      const err = await client({ 'reservation-access-token': 'tok', 'pos-access-token': 'pos' })
        .createCalendarReservation(calendarBody())
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(MissingCredentialError);
      expect((err as MissingCredentialError).extensions.headers).toEqual(['authorization', 'employee_token', 'store_pin_code', 'slug_name']);
      expect(h.server.requests).toHaveLength(0);
    });

    it('refuses when only one API-key header is missing', async () => {
      const err = await client(without('store_pin_code')).createCalendarReservation(calendarBody()).catch((e: unknown) => e);
      expect((err as MissingCredentialError).extensions.headers).toEqual(['store_pin_code']);
      expect(h.server.requests).toHaveLength(0);
    });
  });

  describe('createOffDay', () => {
    it.each([
      ['STORE_PIN_CODE', 'Store 4321 is locked'],
      ['API key without its scheme', 'Unknown key reservation-api-key'],
      ['EMPLOYEE_TOKEN', 'Token EMPLOYEE-TOKEN-VALUE expired'],
    ])('drops an upstream message that quotes the %s of this request, keeping the code', async (_what, message) => {
      h.reply = (_req, res) => sendJson(res, 401, { errors: [{ message, code: 960 }] });
      const err = await client().createOffDay(offDayBody()).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UpstreamError);
      expect(err).toMatchObject({ status: 401, upstreamCode: 960, upstreamMessage: undefined });
    });

    it('records the request id of its scope on each call', async () => {
      h.reply = (_req, res) => sendJson(res, 200);
      const scope = { ...h.scope(), requestId: 'req-42' };
      await new ReservationClient(h.http, ServiceCredentials.from('reservation', headerLookup(CLIENT_HEADERS)), scope).createOffDay(offDayBody());
      expect(h.records.map((r) => r.requestId)).toEqual(['req-42']);
    });

    it('posts the body to /api/v1/off-days and resolves on an empty 200', async () => {
      h.reply = (_req, res) => sendJson(res, 200);
      const body = offDayBody();
      await expect(client().createOffDay(body)).resolves.toBeUndefined();
      const seen = h.onlyRequest();
      expect(seen.method).toBe('POST');
      expect(seen.url).toBe('/api/v1/off-days');
      expect(JSON.parse(seen.body)).toEqual(body);
    });

    it.each([
      ['text', 'text/plain', 'OK'],
      ['HTML', 'text/html', '<html><body>Saved</body></html>'],
      ['JSON', 'application/json', '{"status":"ok"}'],
    ])('resolves on a 200 whose body is %s, which it does not read', async (_what, type, text) => {
      h.reply = (_req, res) => res.writeHead(200, { 'content-type': type }).end(text);
      await expect(client().createOffDay(offDayBody())).resolves.toBeUndefined();
    });

    it('refuses without the API-key headers and sends nothing', async () => {
      await expect(client(without('authorization')).createOffDay(offDayBody())).rejects.toBeInstanceOf(MissingCredentialError);
      expect(h.server.requests).toHaveLength(0);
    });
  });

  describe('updatePaymentRequest', () => {
    it('patches /v1/reservation-payments with the amount as a JSON number and resolves on an empty 200', async () => {
      h.reply = (_req, res) => sendJson(res, 200);
      const body = paymentBody();
      await expect(client().updatePaymentRequest(body)).resolves.toBeUndefined();
      const seen = h.onlyRequest();
      expect(seen.method).toBe('PATCH');
      expect(seen.url).toBe('/v1/reservation-payments');
      expect(JSON.parse(seen.body)).toEqual(body);
      expect(seen.body).toContain('"amount":125.5');
    });

    it('surfaces the upstream error code of a refused amount', async () => {
      h.reply = (_req, res) => sendJson(res, 422, { errors: [{ message: 'Amount is invalid', code: 822 }] });
      await expect(client().updatePaymentRequest(paymentBody())).rejects.toMatchObject({
        service: 'reservation',
        failure: 'status',
        status: 422,
        upstreamCode: 822,
      });
    });

    it.each([
      ['text', 'text/plain', 'OK'],
      ['HTML', 'text/html', '<html><body>Updated</body></html>'],
    ])('resolves on a 200 whose body is %s, which it does not read', async (_what, type, text) => {
      h.reply = (_req, res) => res.writeHead(200, { 'content-type': type }).end(text);
      await expect(client().updatePaymentRequest(paymentBody())).resolves.toBeUndefined();
    });

    it('still reads the error body of a refusal', async () => {
      h.reply = (_req, res) => sendJson(res, 422, { errors: [{ message: 'Payment expiry duration is not suitable', code: 821 }] });
      await expect(client().updatePaymentRequest(paymentBody())).rejects.toMatchObject({
        status: 422,
        upstreamCode: 821,
        upstreamMessage: 'Payment expiry duration is not suitable',
      });
    });

    it.each(RESERVATION_CREDENTIALS)('drops an upstream message that quotes the request\'s %s, keeping the code', async (name) => {
      const secret = CLIENT_HEADERS[name].replace(/^Bearer /, '');
      h.reply = (_req, res) => sendJson(res, 401, { errors: [{ message: `Invalid Token ${secret}`, code: 960 }] });
      const err = (await client().updatePaymentRequest(paymentBody()).catch((e: unknown) => e)) as UpstreamError;
      expect(err).toMatchObject({ service: 'reservation', failure: 'status', status: 401, upstreamCode: 960 });
      expect(err.upstreamMessage).toBeUndefined();
    });

    it('refuses without the Reservation-Access-Token and sends nothing', async () => {
      await expect(client(without('reservation-access-token')).updatePaymentRequest(paymentBody())).rejects.toBeInstanceOf(MissingCredentialError);
      expect(h.server.requests).toHaveLength(0);
    });
  });

  describe('getReservation', () => {
    it('gets /v1/reservations/{id} and resolves the reservation', async () => {
      const reservation = reservationRecord();
      h.reply = (_req, res) => sendJson(res, 200, { reservation });
      expect(fieldsOf(await client().getReservation(reservation.id))).toEqual(fieldsOf(reservation));
      const seen = h.onlyRequest();
      expect(seen.method).toBe('GET');
      expect(seen.url).toBe(`/v1/reservations/${reservation.id}`);
      expect(seen.body).toBe('');
    });

    it('records the route template, never the raw id', async () => {
      const reservation = reservationRecord();
      h.reply = (_req, res) => sendJson(res, 200, { reservation });
      await client().getReservation(reservation.id);
      expect(h.records).toEqual([expect.objectContaining({ service: 'reservation', method: 'GET', route: '/v1/reservations/:id', status: 200 })]);
    });

    it('turns a 404 into a status failure', async () => {
      h.reply = (_req, res) => sendJson(res, 404, { errors: [{ message: 'record not found' }] });
      await expect(client().getReservation(randomUUID())).rejects.toMatchObject({ failure: 'status', status: 404 });
    });

    it.each(INJECTIONS)('refuses the id %j with an InputError and sends nothing', async (id) => {
      const err = await client().getReservation(id).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InputError);
      expect((err as InputError).extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'id' });
      expect(h.server.requests).toHaveLength(0);
    });

    it('refuses without the Reservation-Access-Token and sends nothing', async () => {
      await expect(client(without('reservation-access-token')).getReservation(randomUUID())).rejects.toBeInstanceOf(MissingCredentialError);
      expect(h.server.requests).toHaveLength(0);
    });
  });

  describe('listReservations', () => {
    it('gets /v1/reservations with the date, revenue center and page in the query', async () => {
      const list = { reservations: [reservationRecord(), reservationRecord({ check: null })], meta: pageMeta({ total_count: 2, per_page_count: 10 }) };
      h.reply = (_req, res) => sendJson(res, 200, list);
      const revenueCenterId = randomUUID();
      const page = await client().listReservations({ date: '2026-11-21', revenueCenterId, page: 2, perPage: 10 });
      expect(page.read('reservations').map((r) => (r instanceof UpstreamError ? r : fieldsOf(r)))).toEqual(list.reservations.map(fieldsOf));
      expect(page.read('meta').read('total_count')).toBe(2);
      const seen = h.onlyRequest();
      expect(seen.method).toBe('GET');
      expect(seen.url).toBe(`/v1/reservations?date=2026-11-21&revenue_center_id=${revenueCenterId}&page=2&per_page=10`);
    });

    it('leaves out the revenue center when none is given', async () => {
      h.reply = (_req, res) => sendJson(res, 200, { reservations: [], meta: pageMeta({ total_count: 0 }) });
      await client().listReservations({ date: '2026-11-21', page: 1, perPage: 50 });
      expect(h.onlyRequest().url).toBe('/v1/reservations?date=2026-11-21&page=1&per_page=50');
    });

    it('fails the meta of a list without one at that field alone, as a bad response', async () => {
      h.reply = (_req, res) => sendJson(res, 200, { reservations: [] });
      const page = await client().listReservations({ date: '2026-11-21', page: 1, perPage: 50 });
      expect(page.read('reservations')).toEqual([]);
      expect(() => page.read('meta')).toThrow(expect.objectContaining({ failure: 'bad_response', deviation: { field: 'meta', received: 'missing' } }));
    });

    it('refuses a list body that is not an object whole, as a bad response', async () => {
      h.reply = (_req, res) => sendJson(res, 200, [reservationRecord()]);
      await expect(client().listReservations({ date: '2026-11-21', page: 1, perPage: 50 })).rejects.toMatchObject({ failure: 'bad_response', status: 200 });
    });

    it.each(INJECTIONS)('refuses the revenue center id %j with an InputError and sends nothing', async (revenueCenterId) => {
      const err = await client()
        .listReservations({ date: '2026-11-21', revenueCenterId, page: 1, perPage: 50 })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InputError);
      expect((err as InputError).field).toBe('revenueCenterId');
      expect(h.server.requests).toHaveLength(0);
    });
  });

  describe('headers', () => {
    const operations: Array<[string, (c: ReservationClient) => Promise<unknown>]> = [
      ['createReservation', (c) => c.createReservation(createBody())],
      ['createCalendarReservation', (c) => c.createCalendarReservation(calendarBody())],
      ['createOffDay', (c) => c.createOffDay(offDayBody())],
      ['updatePaymentRequest', (c) => c.updatePaymentRequest(paymentBody())],
      ['getReservation', (c) => c.getReservation(randomUUID())],
      ['listReservations', (c) => c.listReservations({ date: '2026-11-21', page: 1, perPage: 50 })],
    ];

    it.each(operations)('%s sends only the reservation credentials and the gateway headers', async (_name, run) => {
      h.reply = (req, res) => {
        if (req.url?.startsWith('/v1/reservations?')) sendJson(res, 200, { reservations: [], meta: pageMeta() });
        else if (req.method === 'POST' && req.url === '/v1/reservations') sendJson(res, 201, { reservation: reservationRecord() });
        else if (req.url?.startsWith('/v1/reservations/')) sendJson(res, 200, { reservation: reservationRecord() });
        else sendJson(res, 200);
      };
      await run(client());
      const seen = h.onlyRequest();
      const forwarded = Object.keys(seen.headers).filter((name) => !TRANSPORT_HEADERS.has(name));
      expect(forwarded.sort()).toEqual([...RESERVATION_CREDENTIALS, ...Object.keys(GATEWAY_HEADERS)].sort());
      for (const name of RESERVATION_CREDENTIALS) expect(seen.headers[name]).toBe(CLIENT_HEADERS[name]);
      expect(seen.headers['x-request-id']).toBe(GATEWAY_HEADERS['x-request-id']);
      expect(seen.headers.traceparent).toBe(GATEWAY_HEADERS.traceparent);
      expect(seen.headers.host).toBe(`127.0.0.1:${h.server.port}`);
      // Host is the upstream's own address (its port could contain any digits), checked above.
      const everything = seen.rawHeaders.filter((_v, i, all) => all[i - (i % 2)].toLowerCase() !== 'host').join('\n');
      for (const secret of [CLIENT_HEADERS['pos-access-token'], 'session=abc123', '203.0.113.9', 'evil.example', 'Mozilla']) {
        expect(everything).not.toContain(secret);
      }
    });

    it('spells the credential header names as the document does', async () => {
      h.reply = (_req, res) => sendJson(res, 200);
      await client().createOffDay(offDayBody());
      const names = h.onlyRequest().rawHeaders.filter((_v, i) => i % 2 === 0);
      expect(names).toEqual(expect.arrayContaining(['Reservation-Access-Token', 'Authorization', 'EMPLOYEE_TOKEN', 'STORE_PIN_CODE', 'SLUG_NAME']));
    });

    it("never sends one client's credentials on another's request under concurrency", async () => {
      h.reply = (req, res) => sendJson(res, 200, { reservation: reservationRecord({ id: req.url!.split('/').pop()! }) });
      const tokenOf = new Map<string, string>(Array.from({ length: 20 }, () => [randomUUID(), `token-${randomUUID()}`]));
      await Promise.all([...tokenOf].map(([id, token]) => client({ 'reservation-access-token': token }).getReservation(id)));
      expect(h.server.requests).toHaveLength(20);
      for (const seen of h.server.requests) {
        expect(seen.headers['reservation-access-token']).toBe(tokenOf.get(seen.url.split('/').pop()!));
      }
    });
  });
});
