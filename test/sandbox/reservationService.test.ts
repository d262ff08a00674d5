import { SAMPLE, SANDBOX_CREDENTIALS, startSandbox, type Sandbox } from '../../src/sandbox';
import { addDays } from '../../src/sandbox/venueTime';
import { apiKey, call, INVALID_TOKEN, reservationToken } from './sandboxClient';

const LT = SAMPLE.laTerrazza;
const BN = SAMPLE.bistroNord;

describe('reservationService', () => {
  let sandbox: Sandbox;
  beforeAll(async () => { sandbox = await startSandbox(); });
  afterAll(async () => { await sandbox.close(); });

  const newReservation = (overrides: Record<string, unknown> = {}) => ({
    revenue_center_id: LT.revenueCenterIds[0],
    date: `${SAMPLE.laTerrazza.busyDate(sandbox.state)} 19:45`,
    guest_count: 4,
    customer: { first_name: 'Ada', last_name: 'Lovelace', primary_phone_number: '+447700900123', email: 'ada@example.com' },
    ...overrides,
  });
  const offDay = (overrides: Record<string, unknown> = {}) => ({
    revenue_center_id: LT.revenueCenterIds[1], type: 1, date: '2026-12-24 00:00', end_date: '2026-12-26 23:59',
    active_for_reservations: false, partial: false, translations: [{ locale: 'en', text: 'Closed for Christmas' }],
    ...overrides,
  });

  describe('authentication', () => {
    it.each([
      ['POST', '/v1/reservations'], ['GET', '/v1/reservations?date=2026-01-01'],
      ['GET', `/v1/reservations/${LT.reservationWithCheckId}`], ['PATCH', '/v1/reservation-payments'],
    ])('answers 401/960 to %s %s without or with a wrong Reservation-Access-Token', async (method, path) => {
      const body = method === 'GET' ? undefined : {};
      const missing = await call(sandbox, 'reservation', method, path, { body });
      const wrong = await call(sandbox, 'reservation', method, path, { body, headers: { 'Reservation-Access-Token': 'nope' } });
      expect([missing.status, wrong.status]).toEqual([401, 401]);
      expect(missing.json).toEqual(INVALID_TOKEN);
      expect(wrong.json).toEqual(INVALID_TOKEN);
    });

    it.each([['/api/v1/off-days'], ['/api/v1/calendars']])('answers 401/960 on %s unless all four API-key headers match one venue', async (path) => {
      const { STORE_PIN_CODE: _pin, ...threeOfFour } = apiKey('laTerrazza');
      const mixed = { ...apiKey('laTerrazza'), STORE_PIN_CODE: apiKey('bistroNord').STORE_PIN_CODE };
      // The spellings clients may send the gateway are not the service's: the gateway must rename them.
      const { Authorization, 'Employee-Token': employee, 'Store-Pin-Code': pin, 'Slug-Name': slug } = SANDBOX_CREDENTIALS.laTerrazza;
      const hyphenated = { Authorization, 'Employee-Token': employee, 'Store-Pin-Code': pin, 'Slug-Name': slug };
      for (const headers of [{}, threeOfFour, mixed, hyphenated, reservationToken('laTerrazza')]) {
        const answer = await call(sandbox, 'reservation', 'POST', path, { headers, body: offDay() });
        expect(answer.status).toBe(401);
        expect(answer.json).toEqual(INVALID_TOKEN);
      }
    });

    it('matches header names case-insensitively', async () => {
      const answer = await call(sandbox, 'reservation', 'GET', `/v1/reservations/${LT.reservationWithCheckId}`, {
        headers: { 'reservation-access-token': reservationToken('laTerrazza')['Reservation-Access-Token'] },
      });
      expect(answer.status).toBe(200);
    });
  });

  describe('reservations', () => {
    it('creates a reservation with an inline customer and reads it back', async () => {
      const created = await call(sandbox, 'reservation', 'POST', '/v1/reservations', {
        headers: reservationToken('laTerrazza'), body: newReservation({ note: 'Window, please', table_ids: [LT.tableIds[3]] }),
      });
      expect(created.status).toBe(201);
      const record = created.json.reservation;
      expect(record).toMatchObject({
        type: 'reservation', status: 'init', guest_count: 4, note: 'Window, please', revenue_center_id: LT.revenueCenterIds[0],
        store_id: LT.storeId, table_id: LT.tableIds[3], table_ids: [LT.tableIds[3]], created_by: 'Tablegraph API',
        date: `${SAMPLE.laTerrazza.busyDate(sandbox.state)}T19:45:00+03:00`,
        estimated_discharged_at: `${SAMPLE.laTerrazza.busyDate(sandbox.state)}T21:45:00+03:00`,
        discharged_at: null, child_revenue_center_id: null, check: null, reservation_payment: null, is_draft: false,
        customer: { first_name: 'Ada', last_name: 'Lovelace', nickname: null, is_anonym: false, primary_phone_number: '+447700900123', type_name: 'normal' },
      });
      expect(Object.keys(record).sort()).toEqual([
        'assigned_at', 'check', 'child_cover', 'child_revenue_center_id', 'created_at', 'created_by', 'customer', 'date',
        'discharged_at', 'estimated_discharged_at', 'female_cover', 'guest_count', 'hotel_room_number', 'id', 'is_draft',
        'male_cover', 'note', 'occupied_seat_count', 'public_url', 'reservation_payment', 'revenue_center_id', 'status',
        'store_id', 'table_id', 'table_ids', 'table_names', 'type',
      ]);
      expect(record.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+03:00$/);
      expect(record.public_url).toBe(`https://book.example.test/voucher/${record.id}?slug=la-terrazza&lang=en`);

      const read = await call(sandbox, 'reservation', 'GET', `/v1/reservations/${record.id}`, { headers: reservationToken('laTerrazza') });
      expect(read.status).toBe(200);
      expect(read.json).toEqual({ reservation: record });
    });

    it('creates a reservation for a known customer and assigns a table when none is named', async () => {
      const created = await call(sandbox, 'reservation', 'POST', '/v1/reservations', {
        headers: reservationToken('laTerrazza'), body: newReservation({ customer: undefined, customer_id: LT.customerId, guest_count: 5 }),
      });
      expect(created.status).toBe(201);
      expect(created.json.reservation.customer).toMatchObject({ id: LT.customerId, first_name: 'Marco', last_name: 'Bianchi' });
      expect(LT.tableIds).toContain(created.json.reservation.table_id);
      expect(created.json.reservation.table_names).toMatch(/^T\d+$/);
    });

    it.each([
      ['an unknown revenue center', { revenue_center_id: BN.revenueCenterIds[0] }, 802],
      ['a malformed date', { date: '2026-11-21T19:30' }, 801],
      ['an impossible date', { date: '2026-02-30 19:30' }, 801],
      ['a zero guest count', { guest_count: 0 }, 801],
      ['a fractional guest count', { guest_count: 2.5 }, 801],
      ['no customer at all', { customer: undefined }, 801],
      ['an unknown customer_id', { customer: undefined, customer_id: BN.customerId }, 802],
      ['a table of another revenue center', { table_id: LT.tableIds[19] }, 802],
      ['a string where an integer belongs', { male_cover: '2' }, 801],
      ['a booking in 2020', { date: '2020-06-01 19:30' }, 803],
      ['a booking for 400 guests', { guest_count: 400 }, 804],
    ])('refuses %s with 422', async (_what, overrides, code) => {
      const answer = await call(sandbox, 'reservation', 'POST', '/v1/reservations', {
        headers: reservationToken('laTerrazza'), body: newReservation(overrides),
      });
      expect(answer.status).toBe(422);
      expect(answer.json.errors[0]).toEqual({ message: expect.any(String), code });
    });

    it('answers 400 to a body that is not JSON', async () => {
      const answer = await call(sandbox, 'reservation', 'POST', '/v1/reservations', { headers: reservationToken('laTerrazza'), rawBody: '{"date":' });
      expect(answer.status).toBe(400);
      expect(answer.json.errors[0].message).toMatch(/JSON/);
    });

    it('answers 404 to unknown and malformed ids, and to another venue\'s reservation', async () => {
      for (const [id, venue] of [[SAMPLE.unknownId, 'laTerrazza'], ['not-a-uuid', 'laTerrazza'], [LT.reservationWithCheckId, 'bistroNord']] as const) {
        const answer = await call(sandbox, 'reservation', 'GET', `/v1/reservations/${id}`, { headers: reservationToken(venue) });
        expect(answer.status).toBe(404);
        expect(answer.json).toEqual({ errors: [{ message: 'Reservation not found', code: 404 }] });
      }
    });

    it('links the well-known reservation to the open check', async () => {
      const answer = await call(sandbox, 'reservation', 'GET', `/v1/reservations/${LT.reservationWithCheckId}`, { headers: reservationToken('laTerrazza') });
      expect(answer.json.reservation.check).toEqual({ id: LT.openCheckId, alias: expect.stringMatching(/^#\d+$/), status: 'open' });
    });
  });

  describe('reservation list', () => {
    const list = (query: string, venue: 'laTerrazza' | 'bistroNord' = 'laTerrazza') =>
      call(sandbox, 'reservation', 'GET', `/v1/reservations?${query}`, { headers: reservationToken(venue) });

    it('lists the busy date: 50 reservations over exactly 30 distinct checks, ordered by date then id', async () => {
      const fresh = await startSandbox();
      try {
        const answer = await call(fresh, 'reservation', 'GET', `/v1/reservations?date=${LT.busyDate(fresh.state)}`, { headers: reservationToken('laTerrazza') });
        expect(answer.status).toBe(200);
        const reservations: Array<{ id: string; date: string; check: { id: string } | null }> = answer.json.reservations;
        expect(reservations).toHaveLength(50);
        expect(new Set(reservations.map((r) => r.check?.id).filter(Boolean)).size).toBe(30);
        const keys = reservations.map((r) => `${r.date} ${r.id}`);
        expect(keys).toEqual([...keys].sort());
        expect(answer.json.meta).toEqual({ total_count: 50, current_page: 1, per_page_count: 50, total_page: 1, has_next_page: false });
      } finally {
        await fresh.close();
      }
    });

    it('pages with the POS pagination fields', async () => {
      const date = LT.busyDate(sandbox.state);
      const first = await list(`date=${date}&per_page=20`);
      const third = await list(`date=${date}&per_page=20&page=3`);
      expect(first.json.meta).toMatchObject({ current_page: 1, per_page_count: 20, has_next_page: true });
      expect(first.json.reservations).toHaveLength(20);
      expect(third.json.meta).toMatchObject({ current_page: 3, per_page_count: 20, has_next_page: false });
      expect(third.json.meta.total_page).toBe(Math.ceil(third.json.meta.total_count / 20));
      expect(third.json.reservations.length).toBe(third.json.meta.total_count - 40);
    });

    it('filters by revenue center and venue-local date', async () => {
      // The busy Saturday, booked in full whatever the hour: today's list grows as the day passes, and in the venue's
      // first hour after midnight this revenue center has none yet (the check failed then).
      const day = SAMPLE.laTerrazza.busyDate(sandbox.state);
      const answer = await list(`date=${day}&revenue_center_id=${LT.revenueCenterIds[2]}`);
      expect(answer.json.reservations.length).toBeGreaterThan(0);
      for (const r of answer.json.reservations) {
        expect(r.revenue_center_id).toBe(LT.revenueCenterIds[2]);
        expect(r.date.startsWith(`${day}T`)).toBe(true);
      }
    });

    it('shows a venue only its own reservations', async () => {
      const answer = await list(`date=${SAMPLE.today(sandbox.state)}`, 'bistroNord');
      expect(answer.json.reservations.length).toBeGreaterThan(0);
      expect(answer.json.reservations.every((r: { store_id: string }) => r.store_id === BN.storeId)).toBe(true);
    });

    it('answers 400 without a valid date or with bad paging', async () => {
      for (const query of ['', 'date=2026-13-01', 'date=2026-01-01&page=0', 'date=2026-01-01&per_page=x']) {
        const answer = await list(query);
        expect(answer.status).toBe(400);
        expect(answer.json.errors[0]).toEqual({ message: expect.any(String), code: 400 });
      }
    });
  });

  describe('calendars', () => {
    const ahead = () => addDays(SAMPLE.today(sandbox.state), 10);

    it('creates a reservation on a table and answers 201 with it', async () => {
      const answer = await call(sandbox, 'reservation', 'POST', '/api/v1/calendars', {
        headers: apiKey('laTerrazza'),
        body: { revenue_center_id: LT.revenueCenterIds[1], table_id: LT.tableIds[12], date: `${ahead()} 13:15`, guest_count: 3, status: 1, is_dining: true },
      });
      expect(answer.status).toBe(201);
      expect(answer.json.reservation).toMatchObject({
        table_id: LT.tableIds[12], table_names: 'Terrace 1', guest_count: 3, status: 'init', date: `${ahead()}T13:15:00+03:00`,
        customer: { is_anonym: true },
      });
    });

    it.each([
      ['a missing table', { table_id: undefined }, 801],
      ['an unknown table', { table_id: SAMPLE.unknownId }, 802],
      ['an unknown revenue center', { revenue_center_id: SAMPLE.unknownId }, 802],
      ['a malformed date', { date: '01.12.2026 13:15' }, 801],
      ['a date in the past', { date: '2020-06-01 13:15' }, 803],
      ['more guests than the terrace seats (16)', { guest_count: 17 }, 804],
    ])('refuses %s with 422', async (_what, overrides, code) => {
      const answer = await call(sandbox, 'reservation', 'POST', '/api/v1/calendars', {
        headers: apiKey('laTerrazza'),
        body: { revenue_center_id: LT.revenueCenterIds[1], table_id: LT.tableIds[12], date: `${ahead()} 13:15`, ...overrides },
      });
      expect(answer.status).toBe(422);
      expect(answer.json.errors[0].code).toBe(code);
    });
  });

  describe('off days', () => {
    it('stores an off day and answers 200 with no body', async () => {
      const before = sandbox.state.tenants.laTerrazza.off_days.length;
      const answer = await call(sandbox, 'reservation', 'POST', '/api/v1/off-days', { headers: apiKey('laTerrazza'), body: offDay() });
      expect(answer.status).toBe(200);
      expect(answer.text).toBe('');
      expect(sandbox.state.tenants.laTerrazza.off_days).toHaveLength(before + 1);
      expect(sandbox.state.tenants.laTerrazza.off_days.at(-1)).toMatchObject({ revenue_center_id: LT.revenueCenterIds[1], date: '2026-12-24 00:00' });
    });

    it.each([
      ['a locale that is no BCP 47 tag', { translations: [{ locale: 'en_US', text: 'Closed' }] }, 801],
      ['a malformed date', { date: '2026-12-24' }, 801],
      ['an unknown revenue center', { revenue_center_id: BN.revenueCenterIds[0] }, 802],
      ['a malformed start time', { partial: true, start_time: '25:00' }, 801],
    ])('refuses %s with 422', async (_what, overrides, code) => {
      const answer = await call(sandbox, 'reservation', 'POST', '/api/v1/off-days', { headers: apiKey('laTerrazza'), body: offDay(overrides) });
      expect(answer.status).toBe(422);
      expect(answer.json.errors[0].code).toBe(code);
    });
  });

  describe('payment requests', () => {
    const patch = (body: Record<string, unknown>, venue: 'laTerrazza' | 'bistroNord' = 'laTerrazza') =>
      call(sandbox, 'reservation', 'PATCH', '/v1/reservation-payments', { headers: reservationToken(venue), body });

    it('updates a payment request and answers 200 with no body', async () => {
      const answer = await patch({ id: LT.paymentRequestId, amount: 75.5, currency: 'EUR', expiration_time: 24, language: 'TR', send_sms: true });
      expect(answer.status).toBe(200);
      expect(answer.text).toBe('');
      const tenant = sandbox.state.tenants.laTerrazza;
      expect(tenant.payment_requests.get(LT.paymentRequestId)).toMatchObject({ amount: 75.5, expiration_time: 24, language: 'TR', send_sms: true });
      const read = await call(sandbox, 'reservation', 'GET', `/v1/reservations/${LT.reservationWithPaymentId}`, { headers: reservationToken('laTerrazza') });
      expect(read.json.reservation.reservation_payment).toMatchObject({ id: LT.paymentRequestId, amount: 75.5, currency: 'EUR' });
    });

    it.each([[0], [-5], ['10.00'], [null]])('answers 422/822 to amount %p', async (amount) => {
      const answer = await patch({ id: LT.paymentRequestId, amount, expiration_time: 24 });
      expect(answer.status).toBe(422);
      expect(answer.json).toEqual({ errors: [{ message: 'Amount is invalid', code: 822 }] });
    });

    it.each([[0], [-1], [1.5]])('answers 422/821 to expiration_time %p', async (expiration) => {
      const answer = await patch({ id: LT.paymentRequestId, amount: 10, expiration_time: expiration });
      expect(answer.status).toBe(422);
      expect(answer.json).toEqual({ errors: [{ message: 'Payment expiry duration is not suitable', code: 821 }] });
    });

    it('answers 422/832 where the payment-link extension is disabled', async () => {
      const answer = await patch({ id: BN.paymentRequestId, amount: 10, expiration_time: 24 }, 'bistroNord');
      expect(answer.status).toBe(422);
      expect(answer.json).toEqual({ errors: [{ message: 'Payment link extension is not enabled for this store', code: 832 }] });
    });

    it('answers 404 to an unknown payment request and to another venue\'s', async () => {
      for (const id of [SAMPLE.unknownId, BN.paymentRequestId]) {
        const answer = await patch({ id, amount: 10 });
        expect(answer.status).toBe(404);
        expect(answer.json.errors[0]).toEqual({ message: expect.any(String), code: 404 });
      }
    });
  });

  it('answers 404 with an errors body to unknown routes', async () => {
    const answer = await call(sandbox, 'reservation', 'DELETE', '/v1/reservations', { headers: reservationToken('laTerrazza') });
    expect(answer.status).toBe(404);
    expect(answer.json).toEqual({ errors: [{ message: 'Not found', code: 404 }] });
  });
});
