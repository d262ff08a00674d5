import { createSampleState, SAMPLE } from '../../src/sandbox';
import { sampleIdsOf } from '../../src/sandbox/sample/wellKnown';
import { SAMPLE_NOWS } from './sandboxClient';

describe('createSampleState', () => {

  it('names the same well-known records for any now', () => {
    const { busyDate: _b, holidayDate: _h, busyDateReservationCount: _r, busyDateDistinctCheckCount: _c, ...laTerrazza } = SAMPLE.laTerrazza;
    for (const now of SAMPLE_NOWS) {
      expect(sampleIdsOf(createSampleState({ now: new Date(now) }))).toEqual({ laTerrazza, bistroNord: SAMPLE.bistroNord });
    }
  });

  it('builds the same state for the same now', () => {
    const now = new Date(SAMPLE_NOWS[0]);
    const [a, b] = [createSampleState({ now }), createSampleState({ now })];
    for (const venue of ['laTerrazza', 'bistroNord'] as const) {
      expect([...a.tenants[venue].reservations.values()]).toEqual([...b.tenants[venue].reservations.values()]);
      expect([...a.tenants[venue].checks.values()]).toEqual([...b.tenants[venue].checks.values()]);
    }
  });

  it('puts the busy day on the first Saturday after today, in venue time', () => {
    const a = createSampleState({ now: new Date('2026-11-23T08:00:00Z') }); // a Monday
    expect(SAMPLE.laTerrazza.busyDate(a)).toBe('2026-11-28');
    expect(SAMPLE.laTerrazza.holidayDate(a)).toBe('2026-11-30');
    const b = createSampleState({ now: new Date('2026-11-27T22:30:00Z') }); // already Saturday the 28th at +03:00
    expect(SAMPLE.laTerrazza.busyDate(b)).toBe('2026-12-05');
    expect(a.tenants.laTerrazza.reservations.get(SAMPLE.laTerrazza.reservationWithCheckId)!.date.slice(0, 10)).toBe(SAMPLE.laTerrazza.busyDate(a));
  });

  it('builds reservations for the week before today and the two weeks from today, in venue time', () => {
    const state = createSampleState({ now: new Date('2026-11-21T10:00:00Z') });
    const dates = [...new Set([...state.tenants.laTerrazza.reservations.values()].map((r) => r.date.slice(0, 10)))].sort();
    expect(dates).toHaveLength(21);
    expect(dates[0]).toBe('2026-11-14');
    expect(dates[7]).toBe('2026-11-21');
    expect(dates[20]).toBe('2026-12-04');
  });

  it('names real-looking, distinct staff', () => {
    const staff = createSampleState().tenants.laTerrazza.employees;
    expect(new Set(staff.map((e) => `${e.first_name} ${e.last_name}`)).size).toBe(42);
    expect(staff.every((e) => /^\+\d{12}$/.test(e.phone_number) && e.metafields.length > 0)).toBe(true);
  });
});
