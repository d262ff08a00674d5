import { SAMPLE } from '../../src/sandbox';
import { addDays } from '../../src/sandbox/venueTime';
import { BISTRO_NORD, LA_TERRAZZA, startStack, type Stack } from '../support/stack';

describe('mutations through the gateway', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack.close());
  beforeEach(() => stack.sandbox.resetRequests());

  const lt = () => SAMPLE.laTerrazza;
  /** A day a month ahead of the sample's today: the sandbox refuses bookings in the past. */
  const ahead = () => addDays(SAMPLE.today(stack.sandbox.state), 30);
  const upstreamBodies = () => stack.sandbox.requests.map((r) => r.body);

  describe('createReservation', () => {
    const mutation = `mutation($input: CreateReservationInput!) { createReservation(input: $input) { reservation {
      id status type date estimatedDischargedAt guestCount note revenueCenterId customer { id firstName lastName primaryPhoneNumber typeName } check { id } } } }`;

    it('creates a reservation with an inline customer, sends the upstream form, and it can be read back', async () => {
      const input = {
        revenueCenterId: lt().revenueCenterIds[1],
        customer: { firstName: 'Ada', lastName: 'Lovelace', primaryPhoneNumber: '+905551112233', email: 'ada@example.test' },
        guestCount: 4,
        date: `${ahead()}T19:30`,
        estimatedDischargedAt: `${ahead()} 21:30`,
        note: 'Window table, please',
      };
      const res = await stack.gql<{ createReservation: { reservation: Record<string, any> } }>(mutation, { input });
      expect(res.body.errors).toBeUndefined();
      const created = res.body.data!.createReservation.reservation;
      expect(created).toMatchObject({ status: 'init', type: 'reservation', guestCount: 4, note: 'Window table, please', check: null });
      expect(created.customer).toMatchObject({ firstName: 'Ada', lastName: 'Lovelace', typeName: 'normal' });
      expect(created.date).toMatch(new RegExp(`^${ahead()}T19:30:00[+-]\\d{2}:\\d{2}$`));

      expect(stack.sandbox.requests[0]).toMatchObject({ service: 'reservation', method: 'POST', path: '/v1/reservations' });
      expect(upstreamBodies()[0]).toEqual({
        revenue_center_id: lt().revenueCenterIds[1],
        customer: { first_name: 'Ada', last_name: 'Lovelace', primary_phone_number: '+905551112233', email: 'ada@example.test' },
        guest_count: 4,
        date: `${ahead()} 19:30`,
        estimated_discharged_at: `${ahead()} 21:30`,
        note: 'Window table, please',
      });

      const back = await stack.gql<{ reservation: { id: string; note: string } }>(`query($id: ID!) { reservation(id: $id) { id note } }`, { id: created.id });
      expect(back.body.data!.reservation).toEqual({ id: created.id, note: 'Window table, please' });
    });

    it.each([
      [{ revenueCenterId: 'main-dining', date: '2099-12-24T19:30' }, 'input.revenueCenterId'],
      [{ revenueCenterId: '$RC', date: '2099-12-24T25:30' }, 'input.date'],
      [{ revenueCenterId: '$RC', date: '2099-12-24T19:30', guestCount: 0 }, 'input.guestCount'],
      [{ revenueCenterId: '$RC', date: '2099-12-24T19:30', maleCover: -1 }, 'input.maleCover'],
      [{ revenueCenterId: '$RC', date: '2099-12-24T19:30', estimatedDischargedAt: '2099-12-24T18:00' }, 'input.estimatedDischargedAt'],
      [{ revenueCenterId: '$RC', date: '2099-12-24T19:30', tableIds: ['$RC', 'x'] }, 'input.tableIds[1]'],
      [{ revenueCenterId: '$RC', date: '2099-12-24T19:30', customer: { firstName: 'A', email: 'not-an-email' } }, 'input.customer.email'],
    ])('refuses %j before any upstream call, naming %s', async (raw, field) => {
      const input = JSON.parse(JSON.stringify(raw).replaceAll('$RC', lt().revenueCenterIds[0]));
      const res = await stack.gql(mutation, { input });
      expect(res.body.errors![0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field });
      expect(res.body.errors![0].message).toContain(field.replace(/^input\./, '').split(/[.[]/).pop()!.replace(']', ''));
      expect(stack.sandbox.requests).toHaveLength(0);
    });

    it('names the field of a bad inline literal too', async () => {
      const res = await stack.gql(`mutation { createReservation(input: { revenueCenterId: "${lt().revenueCenterIds[0]}", date: "24/12/2026" }) { reservation { id } } }`);
      expect(res.body.errors![0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.date' });
      expect(stack.sandbox.requests).toHaveLength(0);
    });

    it('maps the upstream refusal of an unknown revenue center to BAD_USER_INPUT naming the input field', async () => {
      const res = await stack.gql(mutation, { input: { revenueCenterId: SAMPLE.unknownId, date: '2099-12-24T19:30', guestCount: 2, customerId: lt().customerId } });
      expect(res.body.errors![0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.revenueCenterId', upstream: { service: 'reservation', status: 422 } });
      expect(res.body.errors![0].message).toMatch(/: input\.revenueCenterId is not a revenue center of this store\.$/);
    });

    it('answers UNAUTHENTICATED with code 960 for a wrong token, and without a call for a missing one', async () => {
      const input = { revenueCenterId: lt().revenueCenterIds[0], date: '2099-12-24T19:30', customerId: lt().customerId };
      const wrong = await stack.gql(mutation, { input }, { 'Reservation-Access-Token': 'nope' });
      expect(wrong.body.errors![0].extensions).toMatchObject({ code: 'UNAUTHENTICATED', upstream: { service: 'reservation', status: 401, code: 960, reason: 'invalid_token' } });
      stack.sandbox.resetRequests();
      const missing = await stack.gql(mutation, { input }, { 'Pos-Access-Token': LA_TERRAZZA['Pos-Access-Token'] });
      expect(missing.body.errors![0].extensions).toMatchObject({ code: 'UNAUTHENTICATED' });
      expect(missing.body.errors![0].message).toContain('reservation-access-token');
      expect(stack.sandbox.requests).toHaveLength(0);
    });
  });

  describe('createCalendarReservation', () => {
    const mutation = `mutation($input: CreateCalendarReservationInput!) { createCalendarReservation(input: $input) { reservation { id date guestCount tableId } } }`;

    it('books on the calendar with the four API-key headers and returns the reservation', async () => {
      const input = { revenueCenterId: lt().revenueCenterIds[0], tableId: lt().tableIds[0], date: `${ahead()} 20:00`, guestCount: 2, isDining: true, tagIds: [] };
      const res = await stack.gql<{ createCalendarReservation: { reservation: { id: string; guestCount: number; tableId: string } } }>(mutation, { input });
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data!.createCalendarReservation.reservation).toMatchObject({ guestCount: 2, tableId: lt().tableIds[0] });
      const sent = stack.sandbox.requests[0];
      expect(sent).toMatchObject({ method: 'POST', path: '/api/v1/calendars' });
      expect(sent.body).toEqual({ revenue_center_id: lt().revenueCenterIds[0], table_id: lt().tableIds[0], date: `${ahead()} 20:00`, guest_count: 2, is_dining: true, tag_ids: [] });
      // Sent as Employee-Token, Store-Pin-Code and Slug-Name; forwarded under the service's own names.
      expect(sent.headers).toMatchObject({
        authorization: LA_TERRAZZA.Authorization,
        employee_token: LA_TERRAZZA['Employee-Token'],
        store_pin_code: LA_TERRAZZA['Store-Pin-Code'],
        slug_name: LA_TERRAZZA['Slug-Name'],
      });
      for (const other of ['employee-token', 'store-pin-code', 'slug-name']) expect(sent.headers).not.toHaveProperty([other]);
    });

    it('refuses without a call when one of the four headers is missing', async () => {
      const { 'Store-Pin-Code': _pin, ...headers } = LA_TERRAZZA;
      const input = { revenueCenterId: lt().revenueCenterIds[0], date: '2099-12-26 20:00' };
      const res = await stack.gql(mutation, { input }, headers);
      expect(res.body.errors![0].extensions).toMatchObject({ code: 'UNAUTHENTICATED' });
      expect(res.body.errors![0].message).toBe('Missing credential header: store_pin_code (or Store-Pin-Code)');
      expect(res.body.errors![0].extensions).toMatchObject({ headers: ['store_pin_code'] });
      expect(stack.sandbox.requests).toHaveLength(0);
    });
  });

  describe('createOffDay', () => {
    const mutation = `mutation($input: CreateOffDayInput!) { createOffDay(input: $input) { offDay {
      revenueCenterId date endDate partial startTime endTime days activeForReservations translations { locale text } } } }`;

    it('creates a partial off day and echoes what the service accepted', async () => {
      const input = {
        revenueCenterId: lt().revenueCenterIds[1],
        date: '2099-12-31T00:00',
        endDate: '2099-12-31 23:59',
        partial: true,
        startTime: '18:00',
        endTime: '23:00',
        days: [3],
        activeForReservations: true,
        translations: [{ locale: 'en', text: 'Private event' }, { locale: 'tr', text: 'Özel etkinlik' }],
      };
      const res = await stack.gql<{ createOffDay: { offDay: Record<string, unknown> } }>(mutation, { input });
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data!.createOffDay.offDay).toEqual({ ...input, date: '2099-12-31T00:00', endDate: '2099-12-31T23:59' });
      expect(stack.sandbox.requests[0].body).toMatchObject({ revenue_center_id: lt().revenueCenterIds[1], date: '2099-12-31 00:00', end_date: '2099-12-31 23:59', start_time: '18:00', end_time: '23:00' });
    });

    it.each([
      [{ translations: [{ locale: 'en_US', text: 'Closed' }] }, 'input.translations[0].locale'],
      [{ partial: true, startTime: '18:00' }, 'input.endTime'],
      [{ startTime: '25:00', endTime: '26:00' }, 'input.startTime'],
      [{ endDate: '2099-12-30T00:00' }, 'input.endDate'],
    ])('refuses %j naming %s', async (extra, field) => {
      const res = await stack.gql(mutation, { input: { revenueCenterId: lt().revenueCenterIds[0], date: '2099-12-31T00:00', ...extra } });
      expect(res.body.errors![0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field });
      expect(stack.sandbox.requests).toHaveLength(0);
    });
  });

  describe('updatePaymentRequest', () => {
    const mutation = `mutation($input: UpdatePaymentRequestInput!) { updatePaymentRequest(input: $input) { paymentRequest {
      id amount currency email sendEmail expirationTime language } } }`;

    it('updates the payment request, sending the amount as a JSON number, and echoes it as a Decimal string', async () => {
      const input = { id: lt().paymentRequestId, amount: '125.50', currency: 'EUR', email: 'guest@example.test', sendEmail: true, expirationTime: 48, language: 'EN' };
      const res = await stack.gql<{ updatePaymentRequest: { paymentRequest: Record<string, unknown> } }>(mutation, { input });
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data!.updatePaymentRequest.paymentRequest).toEqual(input);
      expect(stack.sandbox.requests[0]).toMatchObject({ method: 'PATCH', path: '/v1/reservation-payments' });
      expect(stack.sandbox.requests[0].body).toEqual({ id: lt().paymentRequestId, amount: 125.5, currency: 'EUR', email: 'guest@example.test', send_email: true, expiration_time: 48, language: 'EN' });
    });

    it('accepts the amount as a number', async () => {
      const res = await stack.gql<{ updatePaymentRequest: { paymentRequest: { amount: string } } }>(mutation, { input: { id: lt().paymentRequestId, amount: 80 } });
      expect(res.body.data!.updatePaymentRequest.paymentRequest.amount).toBe('80.00');
      expect(stack.sandbox.requests[0].body).toEqual({ id: lt().paymentRequestId, amount: 80 });
    });

    it.each([
      [{ amount: '0' }, 'input.amount'],
      [{ amount: -5 }, 'input.amount'],
      [{ amount: 'ten' }, 'input.amount'],
      [{ expirationTime: 0 }, 'input.expirationTime'],
      [{ email: 'guest@' }, 'input.email'],
      [{ language: 'en' }, 'input.language'],
      [{ sendSms: true }, 'input.phoneNumber'],
    ])('refuses %j naming %s before any upstream call', async (extra, field) => {
      const res = await stack.gql(mutation, { input: { id: lt().paymentRequestId, ...extra } });
      expect(res.body.errors![0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field });
      expect(stack.sandbox.requests).toHaveLength(0);
    });

    it('answers FEATURE_DISABLED with code 832 where the payment-link extension is off', async () => {
      const res = await stack.gql(mutation, { input: { id: SAMPLE.bistroNord.paymentRequestId, amount: 20 } }, BISTRO_NORD);
      expect(res.body.data).toBeNull();
      expect(res.body.errors![0].extensions).toMatchObject({
        code: 'FEATURE_DISABLED',
        upstream: { service: 'reservation', status: 422, code: 832, reason: 'feature_disabled_error' },
      });
    });

    it('answers NOT_FOUND for an unknown payment request', async () => {
      const res = await stack.gql(mutation, { input: { id: SAMPLE.unknownId, amount: 20 } });
      expect(res.body.errors![0].extensions).toMatchObject({ code: 'NOT_FOUND', upstream: { service: 'reservation', status: 404 } });
    });
  });
});
