import { z } from 'zod';
import { UpstreamError } from '../../src/errors/UpstreamError';
import * as posDto from '../../src/upstreams/pos/dto';
import { Check, POS_SCHEMAS } from '../../src/upstreams/pos/dto';
import { UpstreamRecord, jsonType, tableFor, type AnyObject, type Deviation } from '../../src/upstreams/record';
import * as reservationDto from '../../src/upstreams/reservation/dto';
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

  it('reports a deviation once however the field is read, through its getter or read()', () => {
    const seen: Deviation[] = [];
    const record = UpstreamRecord.of(Check, { ...checkRecord(), alias: 7, business_date: '2026-02-30' }, recordOrigin('pos', '/checks/:id', seen));
    const getters = record as unknown as Record<'alias' | 'businessDate', unknown>;
    for (let i = 0; i < 3; i++) {
      expect(getters.alias).toBeInstanceOf(UpstreamError);
      expect(getters.businessDate).toBeInstanceOf(UpstreamError);
      expect(() => record.read('alias')).toThrow('field alias: expected a string, received number');
      expect(() => record.read('business_date')).toThrow('received invalid_date');
    }
    expect(seen.map((d) => d.field)).toEqual(['alias', 'business_date']);
  });

  it('makes a record class for every object schema of both upstreams', () => {
    const schemas = [...Object.values(posDto), ...Object.values(POS_SCHEMAS.ms), ...Object.values(reservationDto)].filter((v) => v instanceof z.ZodObject);
    expect(schemas.length).toBeGreaterThan(20);
    for (const schema of schemas) expect(tableFor(schema as AnyObject).Record.prototype).toBeInstanceOf(UpstreamRecord);
  });

  it.each<[string, AnyObject, string]>([
    ['would hide a member of the record', z.object({ id: z.string(), read: z.string() }), 'upstream field read would hide UpstreamRecord.read'],
    ['gives two keys one name', z.object({ first_name: z.string(), firstName: z.string() }), 'upstream fields first_name and firstName are both firstName'],
    ['has no GraphQL name', z.object({ $raw: z.string() }), 'upstream field $raw has no GraphQL name'],
  ])('refuses a schema whose field %s, each time it is read', (_what, schema, message) => {
    for (let i = 0; i < 2; i++) expect(() => UpstreamRecord.of(schema, { id: 'x' }, recordOrigin('pos', '/x'))).toThrow(message);
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
