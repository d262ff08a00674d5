import { z } from 'zod';
import { FastRefusal, planOf, receivedOf, tableFor, type FieldPlan } from '../../src/upstreams/record';
import { paymentNames, posDateTime } from '../../src/upstreams/pos/assumptions';
import { RESERVATION_READINGS } from '../../src/upstreams/reservation/assumptions';
import { dateString, int, jsonObject, moneyString, posTimestamp, stringList, uuid, uuidList } from '../../src/upstreams/schemas';

/** The fast check a primitive got (withFastCheck), found the way the record reader finds it. */
function fastCheckOf(schema: z.ZodType): (value: unknown) => string | undefined {
  const plan: FieldPlan = planOf(tableFor(z.object({ f: schema })), 'f');
  if (plan.kind !== 'fast') throw new Error(`no fast check (${plan.kind})`);
  return plan.check;
}

const VALUES: unknown[] = [
  undefined, null, true, 0, 1, -1, 1.5, 2 ** 31 - 1, 2 ** 31, -(2 ** 31), -(2 ** 31) - 1, 2 ** 53, 1e300, '', 'x', '1',
  '12.50', '-0.5', '12,50', '1.1234567', '1234567890123456', '123456789012345.123456', '2026-02-28', '2026-02-30',
  '2024-02-29', '2026-13-01', '2026-1-01', '0f8fad5b-d9cb-469f-a165-70867728950e', '0F8FAD5B-D9CB-469F-A165-70867728950E',
  '0f8fad5b-d9cb-469f-a165-70867728950z', '0f8fad5bd9cb469fa16570867728950e', [], ['a'], ['a', 'b'], ['a', 1], [null], [['a']], {}, { id: 1 },
  ['0f8fad5b-d9cb-469f-a165-70867728950e'], ['0f8fad5b-d9cb-469f-a165-70867728950e', 'x'], ['0f8fad5b-d9cb-469f-a165-70867728950e', 2],
  '2026-11-21T19:30:00+03:00', '2026-11-21 19:30+0300', '2026-11-21T19:30:00.5Z', '2026-11-21T19:30:00+03', '2026-11-21T19:30:00',
  '2026-02-30T19:30:00Z', '2026-11-21T25:30:00Z', [''], new Array(2), ['a', , 'b'], // a hole: JSON never makes one
  { nested: { a: [1, 'b'] }, n: null },
  1_763_740_800, 1_763_740_800_000, 253_402_300_799, 253_402_300_800, -62_167_219_201, // POS timestamps, in range and not
];

describe('the primitives of the upstream schemas', () => {
  it.each([
    ['uuid', uuid],
    ['moneyString', moneyString],
    ['int', int],
    ['posTimestamp', posTimestamp],
    ['dateString', dateString],
    ['jsonObject', jsonObject],
    ['stringList', stringList],
    ['uuidList', uuidList],
  ] as const)('%s: the fast check gives the zod schema its verdict and reason on every value', (_name, schema) => {
    const fast = fastCheckOf(schema);
    for (const value of VALUES) {
      if (value === undefined || value === null) continue; // the reader answers these before any check
      const parsed = schema.safeParse(value);
      const zodVerdict = parsed.success ? undefined : receivedOf(value, parsed.error.issues[0]);
      expect({ value, verdict: fast(value) }).toEqual({ value, verdict: zodVerdict });
    }
  });
});

describe('the fast readings of fields that read more than one way', () => {
  it.each([
    ['the reservation date-time', RESERVATION_READINGS.dateTime],
    ['the reservation table names', RESERVATION_READINGS.tableNames],
    ['the POS payment names', paymentNames],
    ['a POS timestamp in s', posDateTime('s')],
    ['a POS timestamp in ms', posDateTime('ms')],
  ] as const)('%s: the fast reading gives the zod schema its value or its reason on every value', (_name, schema) => {
    const plan: FieldPlan = planOf(tableFor(z.object({ f: schema })), 'f');
    if (plan.kind !== 'read') throw new Error(`no reading (${plan.kind})`);
    for (const value of VALUES) {
      if (value === undefined || value === null) continue;
      const parsed = schema.safeParse(value);
      const expected = parsed.success ? parsed.data : new FastRefusal(receivedOf(value, parsed.error.issues[0]));
      expect({ value, read: plan.read(value) }).toEqual({ value, read: expected });
    }
  });

  it.each([
    ['the reservation date-time', RESERVATION_READINGS.dateTime, '2026-11-21 19:30+0300', 42],
    ['the reservation table names', RESERVATION_READINGS.tableNames, ['T1', 'T2'], 42],
    ['the POS payment names', paymentNames, 'Card', 42],
    ['a POS timestamp', posDateTime('s'), 1_763_740_800, 'x'],
  ] as const)('%s: a usable value is read without zod', (_name, schema, usable, unusable) => {
    const plan: FieldPlan = planOf(tableFor(z.object({ f: schema })), 'f');
    if (plan.kind !== 'read') throw new Error(`no reading (${plan.kind})`);
    const zod = jest.spyOn(schema, 'safeParse');
    try {
      plan.read(usable);
      expect(zod).not.toHaveBeenCalled();
      plan.read(unusable);
      expect(zod).toHaveBeenCalledTimes(1); // and zod for a value that is not
    } finally {
      zod.mockRestore();
    }
  });
});
