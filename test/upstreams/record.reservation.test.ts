import { employeeRecord, pageMeta, reservationRecord } from '../support/fixtures';
import { DELETE, changed, expectDeviation, startDeviationRig, type DeviationCase, type DeviationRig } from '../support/deviations';

/**
 * The reservation record, its customer, the reservation page and the employee page, each differing from our reading
 * of the documents in one place, through the whole gateway over real HTTP: that field alone fails, at its own path.
 */

const base = reservationRecord({ check: null });
const R = ['reservation'];
const one = (select: string) => `query ($id: ID!) { reservation(id: $id) { ${select} } }`;

const RESERVATION: DeviationCase[] = [
  { kind: 'a number sent as a string', change: [[['reservation', 'guest_count'], '4']], select: 'guestCount status', path: [...R, 'guestCount'], field: 'reservation.guest_count', received: 'string', siblings: [[[...R, 'status'], base.status]] },
  { kind: 'a null where a value is documented', change: [[['reservation', 'note'], null]], select: 'note createdBy', path: [...R, 'note'], field: 'reservation.note', received: 'null', siblings: [[[...R, 'createdBy'], base.created_by]] },
  { kind: 'a non-existent date', change: [[['reservation', 'date'], '2026-02-30T13:30:00+03:00']], select: 'date createdAt', path: [...R, 'date'], field: 'reservation.date', received: 'invalid_datetime', siblings: [[[...R, 'createdAt'], base.created_at]] },
  { kind: 'a date without an offset', change: [[['reservation', 'estimated_discharged_at'], '2026-11-21 21:30']], select: 'estimatedDischargedAt guestCount', path: [...R, 'estimatedDischargedAt'], field: 'reservation.estimated_discharged_at', received: 'invalid_datetime', siblings: [[[...R, 'guestCount'], base.guest_count]] },
  { kind: 'a string where a list is read', change: [[['reservation', 'table_ids'], base.table_ids[0]]], select: 'tableIds tableNames', path: [...R, 'tableIds'], field: 'reservation.table_ids', received: 'string', siblings: [[[...R, 'tableNames'], base.table_names]] },
  { kind: 'a list where a string is read', change: [[['reservation', 'created_by'], ['api']]], select: 'createdBy status', path: [...R, 'createdBy'], field: 'reservation.created_by', received: 'array', siblings: [[[...R, 'status'], base.status]] },
  { kind: 'a UUID look-alike', change: [[['reservation', 'store_id'], '{' + base.store_id + '}']], select: 'storeId revenueCenterId', path: [...R, 'storeId'], field: 'reservation.store_id', received: 'invalid_uuid', siblings: [[[...R, 'revenueCenterId'], base.revenue_center_id]] },
  { kind: 'a check object without its id (the link)', change: [[['reservation', 'check'], { alias: 'T12-1' }]], select: 'check { id } status', path: [...R, 'check'], field: 'reservation.check.id', received: 'missing', siblings: [[[...R, 'status'], base.status]] },
  { kind: 'a wrong type (customer)', change: [[['reservation', 'customer', 'is_anonym'], 'no']], select: 'customer { isAnonym firstName }', path: [...R, 'customer', 'isAnonym'], field: 'reservation.customer.is_anonym', received: 'string', siblings: [[[...R, 'customer', 'firstName'], base.customer!.first_name]] },
  { kind: 'a null where a value is documented (customer)', change: [[['reservation', 'customer', 'last_name'], null]], select: 'customer { lastName typeName }', path: [...R, 'customer', 'lastName'], field: 'reservation.customer.last_name', received: 'null', siblings: [[[...R, 'customer', 'typeName'], base.customer!.type_name]] },
  { kind: 'a customer without a usable id', change: [[['reservation', 'customer', 'id'], 'c-42']], select: 'customer { firstName } guestCount', path: [...R, 'customer'], field: 'reservation.customer.id', received: 'invalid_uuid', siblings: [[[...R, 'guestCount'], base.guest_count]] },
  { kind: 'a list where a string is read (customer)', change: [[['reservation', 'customer', 'primary_phone_number'], ['+905559998877']]], select: 'customer { primaryPhoneNumber lastName }', path: [...R, 'customer', 'primaryPhoneNumber'], field: 'reservation.customer.primary_phone_number', received: 'array', siblings: [[[...R, 'customer', 'lastName'], base.customer!.last_name]] },
  { kind: 'a missing nested object (customer, read as no customer)', change: [[['reservation', 'customer'], DELETE]], select: 'customer { firstName } guestCount', path: null, field: 'reservation.customer', received: 'missing', siblings: [[[...R, 'customer'], null], [[...R, 'guestCount'], base.guest_count]] },
];

const second = reservationRecord({ check: null });
const page = { reservations: [base, second], meta: pageMeta({ total_count: 2 }) };
const N = ['reservations', 'nodes'];
const RESERVATION_PAGE: DeviationCase[] = [
  { kind: 'a null where a value is documented', change: [[['reservations', 1, 'guest_count'], null]], select: 'nodes { guestCount status } pageInfo { totalCount }', path: [...N, 1, 'guestCount'], field: 'reservations.guest_count', received: 'null', siblings: [[[...N, 0, 'guestCount'], base.guest_count], [[...N, 1, 'status'], second.status], [['reservations', 'pageInfo', 'totalCount'], 2]] },
  { kind: 'a non-existent date', change: [[['reservations', 1, 'created_at'], '2026-02-29T10:00:00+03:00']], select: 'nodes { createdAt id }', path: [...N, 1, 'createdAt'], field: 'reservations.created_at', received: 'invalid_datetime', siblings: [[[...N, 0, 'createdAt'], base.created_at], [[...N, 1, 'id'], second.id]] },
  { kind: 'a list where a string is read', change: [[['reservations', 0, 'hotel_room_number'], ['1204']]], select: 'nodes { hotelRoomNumber status }', path: [...N, 0, 'hotelRoomNumber'], field: 'reservations.hotel_room_number', received: 'array', siblings: [[[...N, 0, 'status'], base.status]] },
  { kind: 'a string where a list is read', change: [[['reservations'], 'none']], select: 'nodes { id } pageInfo { totalCount }', path: N, field: 'reservations', received: 'string', siblings: [[['reservations', 'pageInfo', 'totalCount'], 2]] },
  { kind: 'an element that is no object', change: [[['reservations', 1], 'r-2']], select: 'nodes { id }', path: [...N, 1], field: 'reservations', received: 'string', siblings: [[[...N, 0, 'id'], base.id]] },
  { kind: 'a wrong type (meta)', change: [[['meta', 'has_next_page'], 'no']], select: 'pageInfo { hasNextPage totalPages }', path: ['reservations', 'pageInfo', 'hasNextPage'], field: 'meta.has_next_page', received: 'string', siblings: [[['reservations', 'pageInfo', 'totalPages'], 1]] },
  { kind: 'a missing nested object (meta)', change: [[['meta'], DELETE]], select: 'pageInfo { totalCount } nodes { id }', path: ['reservations', 'pageInfo'], field: 'meta', received: 'missing', siblings: [[[...N, 1, 'id'], second.id]] },
];

const employees = { employees: [employeeRecord(), employeeRecord()], meta: pageMeta({ total_count: 2 }) };
const E = ['employees', 'nodes'];
const EMPLOYEE_PAGE: DeviationCase[] = [
  { kind: 'a wrong type', change: [[['employees', 0, 'last_name'], 7]], select: 'nodes { firstName lastName }', path: [...E, 0, 'lastName'], field: 'employees.last_name', received: 'number', siblings: [[[...E, 0, 'firstName'], employees.employees[0].first_name]] },
  { kind: 'an employee without an id', change: [[['employees', 0, 'id'], DELETE]], select: 'nodes { id firstName }', path: [...E, 0], field: 'employees.id', received: 'missing', siblings: [[[...E, 1, 'id'], employees.employees[1].id]] },
  { kind: 'a string where a list is read', change: [[['employees'], 'none']], select: 'nodes { id } pageInfo { totalCount }', path: E, field: 'employees', received: 'string', siblings: [[['employees', 'pageInfo', 'totalCount'], 2]] },
  { kind: 'a null where a list is documented (metafields)', change: [[['employees', 1, 'metafields'], null]], select: 'nodes { metafields { key } phoneNumber }', path: [...E, 1, 'metafields'], field: 'employees.metafields', received: 'null', siblings: [[[...E, 1, 'phoneNumber'], employees.employees[1].phone_number]] },
  { kind: 'a list where a string is read', change: [[['employees', 1, 'registration_no'], ['EMP-0042']]], select: 'nodes { registrationNo firstName }', path: [...E, 1, 'registrationNo'], field: 'employees.registration_no', received: 'array', siblings: [[[...E, 1, 'firstName'], employees.employees[1].first_name]] },
  { kind: 'a missing nested object (meta)', change: [[['meta'], DELETE]], select: 'pageInfo { totalPages } nodes { id }', path: ['employees', 'pageInfo'], field: 'meta', received: 'missing', siblings: [[[...E, 0, 'id'], employees.employees[0].id]] },
  { kind: 'a timestamp out of range (metafield)', change: [[['employees', 0, 'metafields', 0, 'updated_at'], -1e14]], select: 'nodes { metafields { updatedAt key } }', path: [...E, 0, 'metafields', 0, 'updatedAt'], field: 'employees.metafields.updated_at', received: 'out_of_range', siblings: [[[...E, 0, 'metafields', 0, 'key'], 'badge']] },
  { kind: 'a number sent as a string (meta)', change: [[['meta', 'total_count'], '2']], select: 'pageInfo { totalCount currentPage }', path: ['employees', 'pageInfo', 'totalCount'], field: 'meta.total_count', received: 'string', siblings: [[['employees', 'pageInfo', 'currentPage'], 1]] },
];

describe('UpstreamRecord: reservations and employees', () => {
  let rig: DeviationRig;

  beforeAll(async () => {
    rig = await startDeviationRig();
  });
  afterAll(() => rig.close());

  it.each(RESERVATION)('fails $kind of the reservation at its own field ($field), keeps the rest, counts and logs it once', async (c) => {
    rig.bodies.set('/v1/reservations/:id', changed({ reservation: base }, c.change));
    await expectDeviation(rig, c, () => rig.stack.gql(one(c.select), { id: base.id }), { service: 'reservation', route: '/v1/reservations/:id' });
  });

  it.each(RESERVATION_PAGE)('fails $kind of the reservation page at its own field ($field)', async (c) => {
    rig.bodies.set('/v1/reservations', changed(page, c.change));
    const run = () => rig.stack.gql(`{ reservations(date: "2026-11-21") { ${c.select} } }`);
    await expectDeviation(rig, c, run, { service: 'reservation', route: '/v1/reservations' });
  });

  it.each(EMPLOYEE_PAGE)('fails $kind of the employee page at its own field ($field)', async (c) => {
    rig.bodies.set('/employees', changed(employees, c.change));
    await expectDeviation(rig, c, () => rig.stack.gql(`{ employees { ${c.select} } }`), { service: 'pos', route: '/employees' });
  });

  it('ignores unknown fields of the pages and their records', async () => {
    rig.bodies.set('/employees', changed(employees, [[['links'], {}], [['employees', 0, 'nickname'], 'A'], [['meta', 'cursor'], 'abc']]));
    rig.bodies.set('/v1/reservations', changed(page, [[['reservations', 0, 'source'], 'web'], [['meta', 'cursor'], 'abc']]));
    const res = await rig.stack.gql('{ employees { nodes { firstName } pageInfo { totalCount } } reservations(date: "2026-11-21") { nodes { status } pageInfo { totalCount } } }');
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data).toEqual({
      employees: { nodes: employees.employees.map((e) => ({ firstName: e.first_name })), pageInfo: { totalCount: 2 } },
      reservations: { nodes: [{ status: base.status }, { status: second.status }], pageInfo: { totalCount: 2 } },
    });
  });

  it('ignores unknown fields of the reservation and its customer', async () => {
    rig.bodies.set('/v1/reservations/:id', changed({ reservation: base, links: {} }, [[['reservation', 'source'], 'web'], [['reservation', 'customer', 'vip'], true]]));
    const res = await rig.stack.gql(one('guestCount customer { firstName }'), { id: base.id });
    expect(res.body).toEqual({ data: { reservation: { guestCount: base.guest_count, customer: { firstName: base.customer!.first_name } } } });
  });

  it('reads the other plausible forms of a date and of table_names, and normalises them', async () => {
    const body = changed({ reservation: base }, [[['reservation', 'date'], '2026-11-21 19:30:00+0300'], [['reservation', 'created_at'], '2026-11-01T07:00:00Z'], [['reservation', 'table_names'], ['T12', 'T13']]]);
    rig.bodies.set('/v1/reservations/:id', body);
    const res = await rig.stack.gql(one('date createdAt tableNames'), { id: base.id });
    expect(res.body).toEqual({ data: { reservation: { date: '2026-11-21T19:30:00+03:00', createdAt: '2026-11-01T07:00:00Z', tableNames: 'T12, T13' } } });
  });

  it.each([
    ['2026-11-21T19:30:00+03:00', '2026-11-21T19:30:00+03:00'],
    ['2026-11-21T19:30-00:00', '2026-11-21T19:30-00:00'],
    ['2026-11-21T19:30:00.5Z', '2026-11-21T19:30:00.5Z'],
    ['2026-11-21T19:30:00+0300', '2026-11-21T19:30:00+03:00'],
    ['2026-11-21T19:30:00+03', '2026-11-21T19:30:00+03:00'],
    ['2026-11-21 19:30:00Z', '2026-11-21T19:30:00Z'],
  ])('shows the date-time %s as %s', async (sent, shown) => {
    rig.bodies.set('/v1/reservations/:id', changed({ reservation: base }, [[['reservation', 'created_at'], sent]]));
    const res = await rig.stack.gql(one('createdAt'), { id: base.id });
    expect(res.body).toEqual({ data: { reservation: { createdAt: shown } } });
  });

  it('refuses an answer whose reservation is no object whole, with extensions.upstream', async () => {
    rig.bodies.set('/v1/reservations/:id', { reservation: 'r-1' });
    const res = await rig.stack.gql(one('id'), { id: base.id });
    expect(res.body.data).toEqual({ reservation: null });
    expect(res.body.errors).toEqual([
      expect.objectContaining({ path: ['reservation'], extensions: { code: 'UPSTREAM_BAD_RESPONSE', upstream: { service: 'reservation', status: 200, field: 'reservation', received: 'string' } } }),
    ]);
  });
});
