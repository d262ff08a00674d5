import { SAMPLE, startSandbox, type Sandbox } from '../../src/sandbox';
import { call, posToken, SAMPLE_NOW } from './sandboxClient';

const LT = SAMPLE.laTerrazza;
const MONEY = /^\d+\.\d{2}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const cents = (money: string): number => Math.round(Number(money) * 100);

describe('posService', () => {
  let sandbox: Sandbox;
  beforeAll(async () => { sandbox = await startSandbox({ now: SAMPLE_NOW }); });
  afterAll(async () => { await sandbox.close(); });

  const getCheck = (id: string, venue: 'laTerrazza' | 'bistroNord' = 'laTerrazza') =>
    call(sandbox, 'pos', 'GET', `/checks/${id}`, { headers: posToken(venue) });

  it('answers 401 without or with a wrong Pos-Access-Token', async () => {
    const attempts: Array<Record<string, string>> = [{}, { 'Pos-Access-Token': 'nope' }, { 'Reservation-Access-Token': 'sandbox-res-token-la-terrazza' }];
    for (const headers of attempts) {
      for (const path of [`/checks/${LT.openCheckId}`, '/employees']) {
        const answer = await call(sandbox, 'pos', 'GET', path, { headers });
        expect(answer.status).toBe(401);
        expect(answer.json).toEqual({ errors: [{ message: 'Unauthorized', code: 401 }] });
      }
    }
  });

  describe('GET /checks/{id}', () => {
    it('answers the open check itself with every documented field', async () => {
      const answer = await getCheck(LT.openCheckId);
      expect(answer.status).toBe(200);
      const check = answer.json;
      expect(Object.keys(check).sort()).toEqual([
        'alias', 'business_date', 'check_discounts', 'check_items', 'check_offers', 'check_payments', 'check_service_charge',
        'child_cover', 'closed_at', 'created_at', 'customer', 'delivery', 'delivery_status', 'employee', 'extras', 'female_cover',
        'id', 'male_cover', 'note', 'property_id', 'revenue_center', 'sales_channel', 'sequence', 'sequential_id', 'shift_id',
        'status', 'summary', 'table', 'updated_at',
      ]);
      expect(check).toMatchObject({ id: LT.openCheckId, status: 'open', closed_at: null, property_id: LT.propertyId });
      expect(Number.isInteger(check.created_at) && Number.isInteger(check.updated_at)).toBe(true);
      expect(check.business_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(Object.keys(check.employee).sort()).toEqual(['first_name', 'id', 'last_name', 'metafields', 'phone_number', 'property_id', 'registration_no']);
      expect(Object.keys(check.customer).sort()).toEqual([
        'account_detail', 'created_at', 'customer_discount_id', 'email', 'enterprise_id', 'external_id', 'first_name', 'gender',
        'id', 'last_name', 'metafields', 'phone_number', 'tags', 'updated_at',
      ]);
      expect(Object.values(check.customer.account_detail).every(Number.isInteger)).toBe(true);
      expect(Object.keys(check.check_service_charge).sort()).toEqual(['amount', 'business_date', 'id', 'net_amount', 'service_charge_id', 'tax', 'tax_amount']);
      expect(check.check_discounts[0]).toMatchObject({ source: 'system', type: 'amount', value: expect.stringMatching(MONEY) });
      expect(check.check_offers[0]).toMatchObject({ offer_id: expect.stringMatching(UUID), value: expect.stringMatching(MONEY) });
      expect(check.check_payments[0]).toMatchObject({ paid_amount: expect.stringMatching(MONEY), device: { id: expect.any(String), name: expect.any(String) } });
      for (const item of check.check_items) {
        expect(item).toMatchObject({ status: 'ordered', is_combo: false, item: { type: 'product' }, tax: { rate: 10 } });
        expect(Object.values(item.summary).every((v) => MONEY.test(v as string))).toBe(true);
      }
    });

    it('answers money as strings that add up', async () => {
      for (const id of [LT.openCheckId, LT.closedCheckId, LT.deliveryCheckId, LT.walkInCheckId]) {
        const { summary, check_items: items, check_payments: payments } = (await getCheck(id)).json;
        expect(Object.values(summary).every((v) => MONEY.test(v as string))).toBe(true);
        const itemsTotal = items.reduce((a: number, i: { summary: { original_amount: string } }) => a + cents(i.summary.original_amount), 0);
        expect(cents(summary.original_items_amount)).toBe(itemsTotal);
        expect(cents(summary.base_amount)).toBe(itemsTotal - cents(summary.complimentaries_amount) - cents(summary.discounts_amount) - cents(summary.offer_amount));
        expect(cents(summary.total_amount)).toBe(cents(summary.base_amount) + cents(summary.service_charge_amount));
        const paid = payments.reduce((a: number, p: { paid_amount: string }) => a + cents(p.paid_amount), 0);
        expect(cents(summary.paid_amount)).toBe(paid);
        expect(cents(summary.unpaid_amount)).toBe(cents(summary.total_amount) - paid);
      }
    });

    it('answers closed, delivery and walk-in checks with their own shapes', async () => {
      const closed = (await getCheck(LT.closedCheckId)).json;
      expect(closed.status).toBe('closed');
      expect(Number.isInteger(closed.closed_at)).toBe(true);
      expect(closed.summary.unpaid_amount).toBe('0.00');
      const delivery = (await getCheck(LT.deliveryCheckId)).json;
      expect(delivery).toMatchObject({ delivery_status: 'delivered', table: null, sales_channel: { name: 'Delivery' } });
      expect(Object.keys(delivery.delivery).sort()).toEqual(['address', 'address_id', 'payment_names', 'recipient']);
      const walkIn = (await getCheck(LT.walkInCheckId)).json;
      expect(walkIn).toMatchObject({ customer: null, check_service_charge: null, revenue_center: { name: 'Bar' } });
    });

    it('answers 404 record not found to unknown, malformed and other venues\' checks', async () => {
      for (const [id, venue] of [[SAMPLE.unknownId, 'laTerrazza'], ['42', 'laTerrazza'], [LT.openCheckId, 'bistroNord']] as const) {
        const answer = await getCheck(id, venue);
        expect(answer.status).toBe(404);
        expect(answer.json).toEqual({ errors: [{ message: 'record not found' }] });
      }
    });
  });

  describe('GET /employees', () => {
    const employees = (query: string, venue: 'laTerrazza' | 'bistroNord' = 'laTerrazza') =>
      call(sandbox, 'pos', 'GET', `/employees${query}`, { headers: posToken(venue) });

    it('pages 42 employees 20 at a time over 3 pages', async () => {
      const pages = await Promise.all([1, 2, 3].map((page) => employees(`?page=${page}&per_page=20`)));
      expect(pages.map((p) => p.json.employees.length)).toEqual([20, 20, 2]);
      expect(pages.map((p) => p.json.meta)).toEqual([1, 2, 3].map((page) => ({
        total_count: 42, current_page: page, per_page_count: 20, total_page: 3, has_next_page: page < 3,
      })));
      const ids = pages.flatMap((p) => p.json.employees.map((e: { id: string }) => e.id));
      expect(new Set(ids).size).toBe(42);
    });

    it('defaults to page 1 of 50 and caps per_page at 100', async () => {
      const byDefault = await employees('');
      expect(byDefault.json.meta).toEqual({ total_count: 42, current_page: 1, per_page_count: 50, total_page: 1, has_next_page: false });
      const capped = await employees('?per_page=500');
      expect(capped.json.meta.per_page_count).toBe(100);
    });

    it('scopes employees to the token\'s property', async () => {
      const answer = await employees('', 'bistroNord');
      expect(answer.json.employees).toHaveLength(5);
      expect(answer.json.employees.every((e: { property_id: string }) => e.property_id === SAMPLE.bistroNord.propertyId)).toBe(true);
    });

    it('answers 400 to paging that is not a positive integer', async () => {
      expect((await employees('?page=-1')).status).toBe(400);
      expect((await employees('?per_page=abc')).status).toBe(400);
    });
  });

  it('answers 404 to unknown routes', async () => {
    const answer = await call(sandbox, 'pos', 'GET', '/checks', { headers: posToken('laTerrazza') });
    expect(answer.status).toBe(404);
  });
});
