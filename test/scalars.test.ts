import { DateTimeScalar, LocalDateTimeScalar, isCalendarDate, isDateTime, posTimestampToDateTime } from '../src/scalars';

describe('isCalendarDate', () => {
  it.each([
    ['2026-12-31', true],
    ['2024-02-29', true],
    ['2000-02-29', true],
    ['2023-02-29', false],
    ['1900-02-29', false],
    ['2026-04-31', false],
    ['2026-04-30', true],
    ['2026-13-01', false],
    ['2026-00-10', false],
    ['2026-01-00', false],
    ['2026-1-01', false],
    ['2026-01-1x', false],
    ['2026/01/10', false],
    ['2026-01-10 ', false],
    ['-026-01-10', false],
  ])('says %s is a calendar day: %s', (text, expected) => {
    expect(isCalendarDate(text)).toBe(expected);
  });
});

describe('isDateTime', () => {
  it.each([
    ['2026-11-21T19:30:00+03:00', true],
    ['2026-11-21T19:30+03:00', true],
    ['2026-11-21T19:30:00.123Z', true],
    ['2026-11-21T19:30:00+0300', true],
    ['2026-02-30T13:30:00+03:00', false],
    ['2026-11-21T24:00:00+03:00', false],
    ['2026-11-21T19:60:00+03:00', false],
    ['2026-11-21T19:30:61Z', false],
    ['2026-11-21T19:30:00+25:00', false],
    ['2026-11-21 19:30:00+03:00', false],
    ['2026-11-21T19:30:00', false],
  ])('says %s is a DateTime: %s', (text, expected) => {
    expect(isDateTime(text)).toBe(expected);
  });

  it('keeps the DateTime scalar from serialising a day that does not exist', () => {
    expect(() => DateTimeScalar.serialize('2026-02-30T13:30:00+03:00')).toThrow(TypeError);
    expect(DateTimeScalar.serialize('2026-02-28T13:30:00+03:00')).toBe('2026-02-28T13:30:00+03:00');
  });
});

describe('posTimestampToDateTime', () => {
  it.each<[number, 's' | 'ms', string | undefined]>([
    [1_763_740_800, 's', '2025-11-21T16:00:00+00:00'],
    [1_763_740_800_000, 'ms', '2025-11-21T16:00:00+00:00'],
    [-62_167_219_200, 's', '0000-01-01T00:00:00+00:00'],
    [253_402_300_799, 's', '9999-12-31T23:59:59+00:00'],
    [253_402_300_800, 's', undefined],
    [-62_167_219_201, 's', undefined],
    [9e15, 's', undefined],
    [1_763_740_800_000, 's', undefined],
  ])('shows %d (%s) as %s', (value, unit, expected) => {
    expect(posTimestampToDateTime(value, unit)).toBe(expected);
  });

  it('shows every instant as the Date object does, to the second', () => {
    const asDate = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}+00:00`;
    const [first, last] = [-62_167_219_200_000, 253_402_300_799_999];
    // Each end, the days around the epoch, leap days (2000 is one, 1900 and 2100 are not), and a spread of the rest.
    const instants = [first, first + 999, last, last - 999, -1, 0, 1, -0.5, -1000.5, 999.5, -86_400_001, 951_782_400_000, 951_868_799_999, -2_203_891_200_000, 4_107_542_400_000];
    let seed = 29;
    for (let i = 0; i < 5000; i++) {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      instants.push(Math.floor(first + (seed / 2 ** 31) * (last - first)));
    }
    for (const ms of instants) expect([ms, posTimestampToDateTime(ms, 'ms')]).toEqual([ms, asDate(ms)]);
  });
});

describe('LocalDateTimeScalar', () => {
  it.each([
    ['2026-11-21T19:30', '2026-11-21T19:30'],
    ['2026-11-21 19:30', '2026-11-21T19:30'],
    ['2024-02-29 00:00', '2024-02-29T00:00'],
    ['2026-11-21T23:59', '2026-11-21T23:59'],
  ])('serialises %s as %s', (text, expected) => {
    expect(LocalDateTimeScalar.serialize(text)).toBe(expected);
  });

  it.each(['2026-02-30T19:30', '2026-11-21T24:00', '2026-11-21T19:60', '2026-11-21X19:30', '2026-11-21T19-30', '2026-11-21T19:30:00', '2026-11-2119:30', '2026-1a-21T19:30', '２026-11-21T19:30'])(
    'refuses to serialise %s',
    (text) => {
      expect(() => LocalDateTimeScalar.serialize(text)).toThrow(TypeError);
    },
  );
});
