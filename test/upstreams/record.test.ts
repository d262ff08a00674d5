import { UpstreamError } from '../../src/errors/UpstreamError';
import { Check } from '../../src/upstreams/pos/dto';
import { UpstreamRecord, jsonType, type Deviation } from '../../src/upstreams/record';
import { ReservationList } from '../../src/upstreams/reservation/dto';
import { checkRecord, pageMeta, reservationRecord } from '../support/fixtures';
import { recordOrigin } from '../support/resolvers';

/** A body that records which of its keys were looked at. */
function watched<T extends object>(body: T, touched: string[]): T {
  return new Proxy(body, {
    get(target, key, receiver) {
      if (typeof key === 'string') touched.push(key);
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
}

describe('UpstreamRecord', () => {
  it('looks only at the id when made, and only at the field asked for when read', () => {
    const touched: string[] = [];
    const record = UpstreamRecord.of(Check, watched(checkRecord({ alias: 'T4-2' }), touched), recordOrigin('pos', '/checks/:id'));
    expect(touched).toEqual(['id']);
    expect(record.read('alias')).toBe('T4-2');
    expect(touched).toEqual(['id', 'alias']);
  });

  it('reports each failed read and throws the field error with the status of the answer', () => {
    const seen: Deviation[] = [];
    const record = UpstreamRecord.of(Check, { ...checkRecord(), business_date: '2026-02-30' }, recordOrigin('pos', '/checks/:id', seen));
    let thrown: unknown;
    try {
      record.read('business_date');
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(UpstreamError);
    expect(thrown).toMatchObject({ failure: 'bad_response', status: 200, deviation: { field: 'business_date', received: 'invalid_date' } });
    expect((thrown as UpstreamError).message).not.toContain('2026-02-30');
    expect(seen).toEqual([{ service: 'pos', route: '/checks/:id', field: 'business_date', received: 'invalid_date' }]);
  });

  it('serves a missing field the reading allows to be blank as null, and still reports it', () => {
    const seen: Deviation[] = [];
    const { closed_at: _closed, ...body } = checkRecord();
    expect(UpstreamRecord.of(Check, body, recordOrigin('pos', '/checks/:id', seen)).read('closed_at')).toBeNull();
    expect(seen).toEqual([expect.objectContaining({ field: 'closed_at', received: 'missing' })]);
  });

  it('serves a null the reading allows without reporting it', () => {
    const seen: Deviation[] = [];
    expect(UpstreamRecord.of(Check, checkRecord({ closed_at: null }), recordOrigin('pos', '/checks/:id', seen)).read('closed_at')).toBeNull();
    expect(seen).toEqual([]);
  });

  it('names nested fields by their path without list indexes', () => {
    const seen: Deviation[] = [];
    const page = UpstreamRecord.of(ReservationList, { reservations: [reservationRecord(), { ...reservationRecord(), guest_count: '4' }], meta: pageMeta() }, recordOrigin('pos', '/checks/:id', seen));
    const [first, second] = page.read('reservations');
    expect(first).not.toBeInstanceOf(UpstreamError);
    expect(() => (second as Exclude<typeof second, UpstreamError>).read('guest_count')).toThrow('field reservations.guest_count: expected a 32-bit integer, received string');
    expect(seen.map((d) => d.field)).toEqual(['reservations.guest_count']);
  });

  it.each([
    [undefined, 'missing'],
    [null, 'null'],
    [[], 'array'],
    [{}, 'object'],
    ['x', 'string'],
    [1, 'number'],
    [true, 'boolean'],
  ])('calls %j a JSON %s', (value, name) => {
    expect(jsonType(value)).toBe(name);
  });
});
