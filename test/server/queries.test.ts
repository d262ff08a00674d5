import { SAMPLE } from '../../src/sandbox';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BISTRO_NORD, LA_TERRAZZA, startStack, type Stack } from '../support/stack';

const CHECK_FIELDS = `
  id alias createdAt updatedAt closedAt businessDate status deliveryStatus femaleCover maleCover childCover note
  sequence sequentialId propertyId shiftId extras
  revenueCenter { id name } table { id name } salesChannel { id name }
  employee { id firstName lastName metafields { key value updatedAt } }
  customer { id firstName email createdAt accountDetail { checksCount } tags { name } metafields { key } }
  delivery { address recipient paymentNames }
  serviceCharge { id amount taxAmount netAmount tax { rate name } }
  summary { originalItemsAmount discountsAmount taxesAmount serviceChargeAmount paidAmount unpaidAmount totalAmount }
  discounts { id name type value discountAmount source }
  payments { id paidAmount paymentTypeId device { name } extras }
  items { id status paymentStatus quantity complimentary notes summary { totalAmount } tax { rate } item { id name type } }
  offers { id name value }
`;

describe('queries through the gateway', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack.close());
  beforeEach(() => stack.sandbox.resetRequests());

  const lt = () => SAMPLE.laTerrazza;
  const posCalls = () => stack.sandbox.requests.filter((r) => r.service === 'pos');

  describe('check', () => {
    it('returns the full nested check with converted timestamps and money as strings', async () => {
      const res = await stack.gql<{ check: Record<string, any> }>(`query($id: ID!) { check(id: $id) { ${CHECK_FIELDS} } }`, { id: lt().openCheckId });
      expect(res.body.errors).toBeUndefined();
      const check = res.body.data!.check;
      expect(check.id).toBe(lt().openCheckId);
      expect(check.status).toBe('open');
      expect(check.closedAt).toBeNull();
      expect(check.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/);
      expect(check.summary.totalAmount).toMatch(/^\d+\.\d{2}$/);
      expect(check.items.length).toBeGreaterThan(0);
      expect(typeof check.items[0].item.name).toBe('string');
      expect(check.discounts.length).toBeGreaterThan(0);
      expect(check.offers.length).toBeGreaterThan(0);
      expect(check.serviceCharge.amount).toMatch(/^\d+\.\d{2}$/);
      expect(check.customer.firstName).toBeTruthy();
      const raw = stack.sandbox.state.tenants.laTerrazza.checks.get(lt().openCheckId)!;
      expect(check.createdAt).toBe(new Date(raw.created_at * 1000).toISOString().slice(0, 19) + '+00:00');
    });

    it('converts POS timestamps as milliseconds when POS_TIMESTAMP_UNIT=ms', async () => {
      const msStack = await startStack({ env: { POS_TIMESTAMP_UNIT: 'ms' } });
      try {
        const res = await msStack.gql<{ check: { createdAt: string } }>(`query($id: ID!) { check(id: $id) { createdAt } }`, { id: lt().openCheckId });
        const raw = msStack.sandbox.state.tenants.laTerrazza.checks.get(lt().openCheckId)!;
        expect(res.body.data!.check.createdAt).toBe(new Date(raw.created_at).toISOString().slice(0, 19) + '+00:00');
      } finally {
        await msStack.close();
      }
    });

    it('answers null with NOT_FOUND and the upstream status for an unknown id', async () => {
      const res = await stack.gql(`{ check(id: "${SAMPLE.unknownId}") { id } }`);
      expect(res.body.data).toEqual({ check: null });
      expect(res.body.errors![0].path).toEqual(['check']);
      expect(res.body.errors![0].extensions).toMatchObject({ code: 'NOT_FOUND', upstream: { service: 'pos', status: 404 } });
    });

    it('refuses an id that is not a UUID before any upstream call', async () => {
      const res = await stack.gql(`{ check(id: "../employees") { id } }`);
      expect(res.body.errors![0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'id' });
      expect(stack.sandbox.requests).toHaveLength(0);
    });

    it('answers UNAUTHENTICATED without a call when the POS token is missing', async () => {
      const res = await stack.gql(`query($id: ID!) { check(id: $id) { id } }`, { id: lt().openCheckId }, {});
      expect(res.body.errors![0].extensions).toMatchObject({ code: 'UNAUTHENTICATED' });
      expect(stack.sandbox.requests).toHaveLength(0);
    });

    it('answers UNAUTHENTICATED with the upstream status for a wrong POS token', async () => {
      const res = await stack.gql(`query($id: ID!) { check(id: $id) { id } }`, { id: lt().openCheckId }, { 'Pos-Access-Token': 'wrong' });
      expect(res.body.errors![0].extensions).toMatchObject({ code: 'UNAUTHENTICATED', upstream: { service: 'pos', status: 401 } });
    });
  });

  describe('employees', () => {
    it('pages through the property employees with the upstream page info', async () => {
      const res = await stack.gql<{ employees: { nodes: Array<{ id: string; firstName: string }>; pageInfo: Record<string, unknown> } }>(
        `{ employees(page: 2, perPage: 20) { nodes { id firstName lastName registrationNo metafields { key } } pageInfo { totalCount currentPage perPage totalPages hasNextPage } } }`,
      );
      expect(res.body.errors).toBeUndefined();
      const page = res.body.data!.employees;
      expect(page.nodes).toHaveLength(20);
      expect(page.pageInfo).toEqual({ totalCount: lt().employeeCount, currentPage: 2, perPage: 20, totalPages: Math.ceil(lt().employeeCount / 20), hasNextPage: true });
      expect(stack.sandbox.requests.map((r) => r.path)).toEqual(['/employees?page=2&per_page=20']);
    });

    it.each([0, 101, -5])('refuses perPage %i with BAD_USER_INPUT naming the field', async (perPage) => {
      const res = await stack.gql(`query($n: Int) { employees(perPage: $n) { nodes { id } } }`, { n: perPage });
      expect(res.body.errors![0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'perPage' });
      expect(stack.sandbox.requests).toHaveLength(0);
    });

    it('only sees the employees of the token’s own venue', async () => {
      const res = await stack.gql<{ employees: { pageInfo: { totalCount: number } } }>(`{ employees { pageInfo { totalCount } } }`, undefined, BISTRO_NORD);
      expect(res.body.data!.employees.pageInfo.totalCount).toBe(SAMPLE.bistroNord.employeeCount);
    });
  });

  describe('reservation', () => {
    it('returns a reservation with its customer and its POS check', async () => {
      const res = await stack.gql<{ reservation: Record<string, any> }>(
        `query($id: ID!) { reservation(id: $id) { id type status date guestCount revenueCenterId tableIds publicUrl customer { id firstName typeName } check { id alias summary { totalAmount } } } }`,
        { id: lt().reservationWithCheckId },
      );
      expect(res.body.errors).toBeUndefined();
      const r = res.body.data!.reservation;
      expect(r.id).toBe(lt().reservationWithCheckId);
      expect(r.date).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/);
      expect(r.check.id).toBe(lt().openCheckId);
      expect(posCalls().map((c) => c.path)).toEqual([`/checks/${lt().openCheckId}`]);
    });

    it('answers check: null without calling POS for a reservation without a check', async () => {
      const res = await stack.gql(`query($id: ID!) { reservation(id: $id) { id check { id } } }`, { id: lt().reservationWithoutCheckId });
      expect(res.body.data).toEqual({ reservation: { id: lt().reservationWithoutCheckId, check: null } });
      expect(posCalls()).toHaveLength(0);
    });

    it('does not show another venue’s reservation', async () => {
      const res = await stack.gql(`query($id: ID!) { reservation(id: $id) { id } }`, { id: lt().reservationWithCheckId }, BISTRO_NORD);
      expect(res.body.data).toEqual({ reservation: null });
      expect(res.body.errors![0].extensions).toMatchObject({ code: 'NOT_FOUND', upstream: { service: 'reservation', status: 404 } });
    });

    it('keeps the reservation when its check cannot be loaded, with the error at the check path', async () => {
      // Only the reservation token: the POS call for the check is refused, the reservation itself is not.
      const partial = await stack.gql<{ reservation: { id: string; guestCount: number; check: null } }>(
        `query($id: ID!) { reservation(id: $id) { id guestCount check { id } } }`,
        { id: lt().reservationWithCheckId },
        { 'Reservation-Access-Token': LA_TERRAZZA['Reservation-Access-Token'] },
      );
      expect(partial.body.data!.reservation.id).toBe(lt().reservationWithCheckId);
      expect(partial.body.data!.reservation.guestCount).toBeGreaterThan(0);
      expect(partial.body.data!.reservation.check).toBeNull();
      expect(partial.body.errors![0].path).toEqual(['reservation', 'check']);
      expect(partial.body.errors![0].extensions).toMatchObject({ code: 'UNAUTHENTICATED' });
    });
  });

  describe('reservations', () => {
    it('loads 50 reservations over 30 distinct checks with 1 list call and 30 concurrent check calls', async () => {
      const date = SAMPLE.laTerrazza.busyDate(stack.sandbox.state);
      const res = await stack.gql<{ reservations: { nodes: Array<{ check: { id: string } | null }>; pageInfo: { totalCount: number } } }>(
        `query($date: Date!) { reservations(date: $date, perPage: 50) { pageInfo { totalCount } nodes { id check { id summary { totalAmount } } } } }`,
        { date },
      );
      expect(res.body.errors).toBeUndefined();
      const nodes = res.body.data!.reservations.nodes;
      expect(nodes).toHaveLength(50);
      const checkIds = new Set(nodes.map((n) => n.check?.id).filter(Boolean));
      expect(checkIds.size).toBe(30);
      const reservationCalls = stack.sandbox.requests.filter((r) => r.service === 'reservation');
      expect(reservationCalls).toHaveLength(1);
      expect(posCalls()).toHaveLength(30);
      expect(new Set(posCalls().map((c) => c.path)).size).toBe(30);
    });

    it('issues the check calls concurrently, not one after another', async () => {
      // A POS stand-in that holds every answer until 30 requests are in flight at once (or 3 s pass): sequential
      // calls would never reach 30 in flight.
      const checks = stack.sandbox.state.tenants.laTerrazza.checks;
      let inFlight = 0;
      let maxInFlight = 0;
      const waiting: Array<() => void> = [];
      const pos = createServer((req, res) => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        const answer = () => {
          inFlight--;
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(checks.get(req.url!.split('/')[2])));
        };
        waiting.push(answer);
        if (waiting.length === 30) waiting.splice(0).forEach((f) => f());
      });
      await new Promise<void>((resolve) => pos.listen(0, '127.0.0.1', resolve));
      const fallback = setTimeout(() => waiting.splice(0).forEach((f) => f()), 3000);
      const held = await startStack({ env: { POS_BASE_URL: `http://127.0.0.1:${(pos.address() as AddressInfo).port}` } });
      try {
        const date = SAMPLE.laTerrazza.busyDate(held.sandbox.state);
        const res = await held.gql(`query($date: Date!) { reservations(date: $date, perPage: 50) { nodes { check { id } } } }`, { date });
        expect(res.body.errors).toBeUndefined();
        expect(maxInFlight).toBe(30);
      } finally {
        clearTimeout(fallback);
        await held.close();
        pos.closeAllConnections();
        await new Promise((resolve) => pos.close(resolve));
      }
    });

    it('filters by revenue center and passes the page arguments upstream', async () => {
      const date = SAMPLE.laTerrazza.busyDate(stack.sandbox.state);
      const rc = lt().revenueCenterIds[0];
      const res = await stack.gql<{ reservations: { nodes: Array<{ revenueCenterId: string }> } }>(
        `query($date: Date!, $rc: ID) { reservations(date: $date, revenueCenterId: $rc, page: 1, perPage: 5) { nodes { revenueCenterId } } }`,
        { date, rc },
      );
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data!.reservations.nodes.every((n) => n.revenueCenterId === rc)).toBe(true);
      expect(stack.sandbox.requests[0].path).toBe(`/v1/reservations?date=${date}&revenue_center_id=${rc}&page=1&per_page=5`);
    });

    it.each([
      ['2026-13-01', 'date'],
      ['2026-02-30', 'date'],
      ['tomorrow', 'date'],
    ])('refuses the date %s with BAD_USER_INPUT naming the field', async (date, field) => {
      const res = await stack.gql(`query($d: Date!) { reservations(date: $d) { nodes { id } } }`, { d: date });
      expect(res.body.errors![0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field });
      expect(stack.sandbox.requests).toHaveLength(0);
    });

    it('refuses a bad literal date with BAD_USER_INPUT naming the argument', async () => {
      const res = await stack.gql(`{ reservations(date: "2026-1-1") { nodes { id } } }`);
      expect(res.body.errors![0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'date' });
      expect(stack.sandbox.requests).toHaveLength(0);
    });

    it('refuses a revenueCenterId that is not a UUID', async () => {
      const res = await stack.gql(`{ reservations(date: "2026-11-21", revenueCenterId: "main") { nodes { id } } }`);
      expect(res.body.errors![0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'revenueCenterId' });
      expect(stack.sandbox.requests).toHaveLength(0);
    });
  });
});
