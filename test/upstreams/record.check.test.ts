import { checkRecord } from '../support/fixtures';
import { DELETE, changed, expectDeviation, startDeviationRig, type DeviationCase, type DeviationRig } from '../support/deviations';

/**
 * A POS check that differs from our reading of pos-service.md in one place, through the whole gateway over real HTTP:
 * that field alone is null with UPSTREAM_BAD_RESPONSE at its path, its siblings and parent arrive, the deviation is
 * counted and logged once. One case per nested object of the check and per kind of deviation.
 */

const base = checkRecord();
const CHECK = ['check'];
const item = (...rest: Array<string | number>) => ['check', 'items', 0, ...rest];

const CASES: DeviationCase[] = [
  { kind: 'a wrong type', change: [[['alias'], 42]], select: 'id alias status', path: ['check', 'alias'], field: 'alias', received: 'number', siblings: [[[...CHECK, 'id'], base.id], [[...CHECK, 'status'], base.status]] },
  { kind: 'a number where an integer is read', change: [[['female_cover'], 1.5]], select: 'femaleCover maleCover', path: ['check', 'femaleCover'], field: 'female_cover', received: 'not_integer', siblings: [[[...CHECK, 'maleCover'], base.male_cover]] },
  { kind: 'an integer GraphQL cannot hold', change: [[['sequence'], 2 ** 40]], select: 'sequence sequentialId', path: ['check', 'sequence'], field: 'sequence', received: 'out_of_range', siblings: [[[...CHECK, 'sequentialId'], base.sequential_id]] },
  { kind: 'a timestamp out of range', change: [[['created_at'], 9e15]], select: 'createdAt updatedAt', path: ['check', 'createdAt'], field: 'created_at', received: 'out_of_range', siblings: [[[...CHECK, 'updatedAt'], '2025-11-21T17:00:00+00:00']] },
  { kind: 'a non-existent date', change: [[['business_date'], '2026-02-30']], select: 'businessDate alias', path: ['check', 'businessDate'], field: 'business_date', received: 'invalid_date', siblings: [[[...CHECK, 'alias'], base.alias]] },
  { kind: 'a null where a value is documented (employee)', change: [[['employee', 'first_name'], null]], select: 'employee { id firstName lastName }', path: ['check', 'employee', 'firstName'], field: 'employee.first_name', received: 'null', siblings: [[[...CHECK, 'employee', 'lastName'], base.employee.last_name], [[...CHECK, 'employee', 'id'], base.employee.id]] },
  { kind: 'a wrong type (metafield of the employee)', change: [[['employee', 'metafields', 0, 'updated_at'], '2026']], select: 'employee { metafields { key updatedAt } }', path: ['check', 'employee', 'metafields', 0, 'updatedAt'], field: 'employee.metafields.updated_at', received: 'string', siblings: [[[...CHECK, 'employee', 'metafields', 0, 'key'], 'badge']] },
  { kind: 'a nested object replaced (revenue center)', change: [[['revenue_center'], 'Terrace']], select: 'revenueCenter { name } alias', path: ['check', 'revenueCenter'], field: 'revenue_center', received: 'string', siblings: [[[...CHECK, 'alias'], base.alias]] },
  { kind: 'a list where a string is read (delivery)', change: [[['delivery', 'address'], ['Bağdat Cd.', '1']]], select: 'delivery { address recipient paymentNames }', path: ['check', 'delivery', 'address'], field: 'delivery.address', received: 'array', siblings: [[[...CHECK, 'delivery', 'recipient'], base.delivery!.recipient], [[...CHECK, 'delivery', 'paymentNames'], ['cash']]] },
  { kind: 'a UUID look-alike (delivery)', change: [[['delivery', 'address_id'], '0f8fad5b-d9cb-469f-a165-70867728950z']], select: 'delivery { addressId recipient }', path: ['check', 'delivery', 'addressId'], field: 'delivery.address_id', received: 'invalid_uuid', siblings: [[[...CHECK, 'delivery', 'recipient'], base.delivery!.recipient]] },
  { kind: 'a missing nested object (summary)', change: [[['summary'], DELETE]], select: 'summary { totalAmount } alias', path: ['check', 'summary'], field: 'summary', received: 'missing', siblings: [[[...CHECK, 'alias'], base.alias]] },
  { kind: 'malformed money (summary)', change: [[['summary', 'total_amount'], '12,50']], select: 'summary { totalAmount paidAmount }', path: ['check', 'summary', 'totalAmount'], field: 'summary.total_amount', received: 'invalid_decimal', siblings: [[[...CHECK, 'summary', 'paidAmount'], base.summary.paid_amount]] },
  { kind: 'a non-existent date (service charge)', change: [[['check_service_charge', 'business_date'], '2026-02-30']], select: 'serviceCharge { businessDate amount }', path: ['check', 'serviceCharge', 'businessDate'], field: 'check_service_charge.business_date', received: 'invalid_date', siblings: [[[...CHECK, 'serviceCharge', 'amount'], base.check_service_charge!.amount]] },
  { kind: 'a wrong type (tax of the service charge)', change: [[['check_service_charge', 'tax', 'rate'], '10']], select: 'serviceCharge { tax { rate name } }', path: ['check', 'serviceCharge', 'tax', 'rate'], field: 'check_service_charge.tax.rate', received: 'string', siblings: [[[...CHECK, 'serviceCharge', 'tax', 'name'], 'VAT 10%']] },
  { kind: 'a UUID look-alike (discount)', change: [[['check_discounts', 0, 'discount_id'], 'not-a-uuid-at-all']], select: 'discounts { discountId name }', path: ['check', 'discounts', 0, 'discountId'], field: 'check_discounts.discount_id', received: 'invalid_uuid', siblings: [[[...CHECK, 'discounts', 0, 'name'], 'None']] },
  { kind: 'a list element that is no object (discounts)', change: [[['check_discounts', 1], 'ten percent']], select: 'discounts { id } alias', path: ['check', 'discounts', 1], field: 'check_discounts', received: 'string', siblings: [[[...CHECK, 'discounts', 0, 'id'], base.check_discounts[0].id], [[...CHECK, 'alias'], base.alias]] },
  { kind: 'a nested object replaced (payment device)', change: [[['check_payments', 0, 'device'], 'Till 1']], select: 'payments { device { name } paidAmount }', path: ['check', 'payments', 0, 'device'], field: 'check_payments.device', received: 'string', siblings: [[[...CHECK, 'payments', 0, 'paidAmount'], '138.05']] },
  { kind: 'a string where a list is read (item notes)', change: [[['check_items', 0, 'notes'], 'no onions']], select: 'items { notes quantity }', path: item('notes'), field: 'check_items.notes', received: 'string', siblings: [[item('quantity'), '2']] },
  { kind: 'a missing nested object (item summary)', change: [[['check_items', 0, 'summary'], DELETE]], select: 'items { summary { totalAmount } status }', path: item('summary'), field: 'check_items.summary', received: 'missing', siblings: [[item('status'), 'served']] },
  { kind: 'a nested object without its id (menu item)', change: [[['check_items', 0, 'item', 'id'], DELETE]], select: 'items { item { id name } quantity }', path: item('item'), field: 'check_items.item.id', received: 'missing', siblings: [[item('quantity'), '2']] },
  { kind: 'a wrong type (offer)', change: [[['check_offers', 0, 'value'], 10]], select: 'offers { value name }', path: ['check', 'offers', 0, 'value'], field: 'check_offers.value', received: 'number', siblings: [[[...CHECK, 'offers', 0, 'name'], 'Happy hour']] },
  { kind: 'a missing nested object (customer account)', change: [[['customer', 'account_detail'], DELETE]], select: 'customer { accountDetail { checksCount } firstName }', path: ['check', 'customer', 'accountDetail'], field: 'customer.account_detail', received: 'missing', siblings: [[[...CHECK, 'customer', 'firstName'], 'Can']] },
  { kind: 'an object where a list is read (customer tags)', change: [[['customer', 'tags'], { id: base.customer!.tags[0].id, name: 'regular' }]], select: 'customer { tags { name } email }', path: ['check', 'customer', 'tags'], field: 'customer.tags', received: 'object', siblings: [[[...CHECK, 'customer', 'email'], 'can@example.com']] },
];

describe('UpstreamRecord: the POS check', () => {
  let rig: DeviationRig;
  const query = (select: string) => `query ($id: ID!) { check(id: $id) { ${select} } }`;

  beforeAll(async () => {
    rig = await startDeviationRig();
  });
  afterAll(() => rig.close());

  it.each(CASES)('fails $kind at its own field ($field), keeps the rest, counts and logs it once', async (c) => {
    rig.bodies.set('/checks/:id', changed(base, c.change));
    await expectDeviation(rig, c, () => rig.stack.gql(query(c.select), { id: base.id }), { service: 'pos', route: '/checks/:id' });
  });

  it('ignores unknown fields, at the top and in nested objects, without counting them', async () => {
    rig.bodies.set('/checks/:id', changed(base, [[['loyalty_points'], 12], [['summary', 'rounding_amount'], '0.01'], [['check_items', 0, 'course'], 2]]));
    const res = await rig.stack.gql(query('alias summary { totalAmount } items { quantity }'), { id: base.id });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data).toEqual({ check: { alias: base.alias, summary: { totalAmount: base.summary.total_amount }, items: [{ quantity: '2' }] } });
    expect(rig.stack.logs.join('\n')).not.toMatch(/loyalty_points|rounding_amount|course/);
  });

  it('never checks a field that is not selected', async () => {
    rig.bodies.set('/checks/:id', changed(base, [[['note'], 7]]));
    const res = await rig.stack.gql(query('alias'), { id: base.id });
    expect(res.body).toEqual({ data: { check: { alias: base.alias } } });
    expect(await rig.deviations({ service: 'pos', route: '/checks/:id', field: 'note', received: 'number' })).toBe(0);
  });

  it('accepts payment_names as one string, the other reading of its line, as a one-element list', async () => {
    rig.bodies.set('/checks/:id', changed(base, [[['delivery', 'payment_names'], 'Card']]));
    const res = await rig.stack.gql(query('delivery { paymentNames }'), { id: base.id });
    expect(res.body).toEqual({ data: { check: { delivery: { paymentNames: ['Card'] } } } });
  });

  it('refuses a body that is not JSON whole, counted as the body', async () => {
    rig.bodies.set('/checks/:id', '<html><body>Maintenance</body></html>');
    const res = await rig.stack.gql(query('id'), { id: base.id });
    expect(res.body.data).toEqual({ check: null });
    expect(res.body.errors?.[0]?.extensions).toEqual({ code: 'UPSTREAM_BAD_RESPONSE', upstream: { service: 'pos', status: 200, field: '(body)', received: 'not_json' } });
    expect(await rig.deviations({ service: 'pos', route: '/checks/:id', field: '(body)', received: 'not_json' })).toBe(1);
  });

  it('refuses a check without a usable id whole, with extensions.upstream, counted and logged', async () => {
    rig.bodies.set('/checks/:id', changed(base, [[['id'], null]]));
    const res = await rig.stack.gql(query('id alias'), { id: base.id });
    expect(res.body.data).toEqual({ check: null });
    expect(res.body.errors).toEqual([
      expect.objectContaining({ path: ['check'], extensions: { code: 'UPSTREAM_BAD_RESPONSE', upstream: { service: 'pos', status: 200, field: 'id', received: 'null' } } }),
    ]);
    expect(await rig.deviations({ service: 'pos', route: '/checks/:id', field: 'id', received: 'null' })).toBe(1);
    expect(rig.deviationLogs('id', 'null')).toHaveLength(1);
  });
});
