import { createSampleState, SAMPLE } from '../../src/sandbox';

describe('createSampleState', () => {
  it('gives the same ids for any now, and moves only the dates', () => {
    const a = createSampleState({ now: new Date('2026-03-01T08:00:00Z') });
    const b = createSampleState({ now: new Date('2027-07-19T23:30:00Z') });
    for (const venue of ['laTerrazza', 'bistroNord'] as const) {
      expect([...a.tenants[venue].reservations.keys()]).toEqual([...b.tenants[venue].reservations.keys()]);
      expect([...a.tenants[venue].checks.keys()]).toEqual([...b.tenants[venue].checks.keys()]);
      expect(a.tenants[venue].employees.map((e) => e.id)).toEqual(b.tenants[venue].employees.map((e) => e.id));
      expect([...a.tenants[venue].payment_requests.keys()]).toEqual([...b.tenants[venue].payment_requests.keys()]);
    }
    expect(a.tenants.laTerrazza.reservations.get(SAMPLE.laTerrazza.reservationWithCheckId)!.date.slice(0, 10)).toBe(SAMPLE.laTerrazza.busyDate(a));
    expect(SAMPLE.laTerrazza.busyDate(b)).toBe('2027-07-21'); // 23:30Z is already the 20th at +03:00
  });

  it('builds reservations for 14 days from today in venue time', () => {
    const state = createSampleState({ now: new Date('2026-11-21T10:00:00Z') });
    const dates = new Set([...state.tenants.laTerrazza.reservations.values()].map((r) => r.date.slice(0, 10)));
    expect(dates.size).toBe(14);
    expect([...dates].sort()[0]).toBe('2026-11-21');
    expect([...dates].sort()[13]).toBe('2026-12-04');
  });

  it('names real-looking, distinct staff', () => {
    const staff = createSampleState().tenants.laTerrazza.employees;
    expect(new Set(staff.map((e) => `${e.first_name} ${e.last_name}`)).size).toBe(42);
    expect(staff.every((e) => /^\+\d{12}$/.test(e.phone_number) && e.metafields.length > 0)).toBe(true);
  });
});
