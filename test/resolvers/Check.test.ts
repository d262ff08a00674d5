import { UpstreamError } from '../../src/errors/UpstreamError';
import { Check, EmployeePage } from '../../src/resolvers';
import { POS_SCHEMAS } from '../../src/upstreams/pos/dto';
import { UpstreamRecord, type Deviation, type Shape } from '../../src/upstreams/record';
import { checkRecord, employeeRecord, pageMeta } from '../support/fixtures';
import { recordOrigin, resolveField } from '../support/resolvers';

function check(fields: Record<string, unknown> = {}, unit: 's' | 'ms' = 's', seen: Deviation[] = []) {
  return UpstreamRecord.of(POS_SCHEMAS[unit].Check, { ...checkRecord(), ...fields }, recordOrigin('pos', '/checks/:id', seen));
}

/** A field the executable schema reads off the record by its GraphQL name (no resolver of its own). */
function getter(record: object, name: string): unknown {
  return Reflect.get(record, name) as unknown;
}

describe('Check', () => {
  it('renames the upstream lists to the contract names', () => {
    const raw = checkRecord();
    const record = check(raw);
    expect([Check.discounts, Check.payments, Check.items, Check.offers].map((r) => (resolveField(r, record) as unknown[]).length)).toEqual([
      raw.check_discounts.length,
      raw.check_payments.length,
      raw.check_items.length,
      raw.check_offers.length,
    ]);
    // Each list is one element long, so the lengths alone would not tell two lists apart: their elements' ids do.
    const firstId = (resolver: unknown): unknown => {
      const [first] = resolveField(resolver, record) as unknown[];
      expect(first).toBeInstanceOf(UpstreamRecord);
      return (first as UpstreamRecord<Shape>).read('id');
    };
    expect([Check.discounts, Check.payments, Check.items, Check.offers].map(firstId)).toEqual([
      raw.check_discounts[0].id,
      raw.check_payments[0].id,
      raw.check_items[0].id,
      raw.check_offers[0].id,
    ]);
    expect(resolveField(Check.serviceCharge, check({ check_service_charge: null }))).toBeNull();
  });

  it('needs no resolver for its timestamps: the POS reading gives them as DateTimes, in the configured unit', () => {
    expect(Check.createdAt).toBeUndefined();
    expect(getter(check({ created_at: 1_763_740_800 }), 'createdAt')).toBe('2025-11-21T16:00:00+00:00');
    expect(getter(check({ created_at: 1_763_740_800_000 }, 'ms'), 'createdAt')).toBe('2025-11-21T16:00:00+00:00');
    expect(getter(check({ closed_at: null }), 'closedAt')).toBeNull();
  });

  it('fails a timestamp outside what a DateTime can show alone, as out_of_range', () => {
    const seen: Deviation[] = [];
    const value = getter(check({ updated_at: 1_763_740_800_000 }, 's', seen), 'updatedAt');
    expect(value).toBeInstanceOf(UpstreamError);
    expect(seen).toEqual([{ service: 'pos', route: '/checks/:id', field: 'updated_at', received: 'out_of_range' }]);
  });
});

describe('EmployeePage', () => {
  it('gives the page its employees as records and its meta as the page info', () => {
    const page = UpstreamRecord.of(POS_SCHEMAS.s.EmployeeList, { employees: [employeeRecord()], meta: pageMeta() }, recordOrigin('pos', '/employees'));
    expect((resolveField(EmployeePage.nodes, page) as unknown[]).length).toBe(1);
    expect(resolveField(EmployeePage.pageInfo, page)).toBeInstanceOf(UpstreamRecord);
  });
});
