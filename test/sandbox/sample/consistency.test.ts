import { createSampleState, SAMPLE, type SandboxState } from '../../../src/sandbox';
import type { TenantState } from '../../../src/sandbox/records';
import { SAMPLE_NOWS } from '../sandboxClient';

/**
 * What a front-end developer sees in the sample must hang together: these rules hold for every venue and for any
 * `now` (SAMPLE_NOWS: around midnight venue time, on weekdays and Saturdays, in summer, on New Year's Eve).
 */
const VENUES = ['laTerrazza', 'bistroNord'] as const;
const cases = SAMPLE_NOWS.flatMap((now) => VENUES.map((venue) => ({ now, venue })));
const states = new Map(SAMPLE_NOWS.map((now) => [now, createSampleState({ now: new Date(now) })]));
const tenantOf = (now: string, venue: (typeof VENUES)[number]): [SandboxState, TenantState] => {
  const state = states.get(now)!;
  return [state, state.tenants[venue]];
};
const seconds = (iso: string) => Date.parse(iso) / 1000;

describe('the sample data', () => {
  describe.each(cases)('of $venue at $now', ({ now, venue }) => {
    const [state, tenant] = tenantOf(now, venue);
    const nowS = Date.parse(now) / 1000;
    const reservations = [...tenant.reservations.values()];
    const checks = [...tenant.checks.values()];

    it("links a reservation only to a check of the same guest, table and business day", () => {
      const linked = reservations.filter((r) => r.check !== null);
      expect(linked.length).toBeGreaterThan(0);
      for (const r of linked) {
        const check = tenant.checks.get(r.check!.id);
        expect(check).toBeDefined();
        if (check!.customer === null) expect(r.customer.is_anonym).toBe(true);
        else expect(check!.customer.id).toBe(r.customer.id);
        expect(r.table_ids).toContain(check!.table?.id);
        expect(check!.business_date).toBe(r.date.slice(0, 10));
        expect(r.check).toEqual({ id: check!.id, alias: check!.alias, status: check!.status });
      }
    });

    it('gives a future reservation no check or an open one, and closes checks only in the past', () => {
      for (const r of reservations.filter((r) => seconds(r.date) > nowS && r.check)) expect(r.check!.status).toBe('open');
      for (const c of checks) {
        expect(c.created_at).toBeLessThanOrEqual(nowS);
        if (c.status === 'closed') {
          expect(c.closed_at).toBeLessThanOrEqual(nowS);
          expect(c.business_date <= SAMPLE.today(state)).toBe(true);
        } else {
          expect(c.closed_at).toBeNull();
        }
      }
    });

    it('keeps completed parties and no-shows in the past, and walk-ins on their own status', () => {
      for (const r of reservations) {
        expect(seconds(r.created_at)).toBeLessThanOrEqual(Math.min(nowS, seconds(r.date)));
        if (r.status === 'completed' || r.status === 'no_show') expect(seconds(r.date)).toBeLessThan(nowS);
        if (r.status === 'completed') expect(tenant.checks.get(r.check!.id)!.status).toBe('closed');
        if (r.status === 'seated') {
          expect(r.check?.status).toBe('open');
          expect(seconds(r.date)).toBeLessThanOrEqual(nowS);
          expect(seconds(r.estimated_discharged_at)).toBeGreaterThan(nowS);
        }
        if (r.status === 'walk_in') expect(r.check).not.toBeNull();
        if (r.status === 'no_show' || r.status === 'cancelled') expect(r.occupied_seat_count).toBe(0);
      }
    });

    it('seats no party beyond its tables, and no two parties at one table at once', () => {
      const seats = new Map(tenant.tables.map((t) => [t.id, t.capacity]));
      const held = new Map<string, Array<[number, number, string]>>();
      for (const r of reservations) {
        expect(r.guest_count).toBeLessThanOrEqual(r.table_ids.reduce((a, id) => a + seats.get(id)!, 0));
        if (r.status === 'cancelled' || r.status === 'no_show') continue;
        for (const id of r.table_ids) {
          const [from, to] = [seconds(r.date), seconds(r.estimated_discharged_at)];
          for (const [a, b, other] of held.get(id) ?? []) expect({ overlapsWith: to > a && from < b ? other : null, id: r.id }).toEqual({ overlapsWith: null, id: r.id });
          held.set(id, [...(held.get(id) ?? []), [from, to, r.id]]);
        }
      }
    });

    it('has every walk of restaurant life: bookings, parties at their tables, walk-ins, no-shows and cancellations', () => {
      const statuses = new Set(reservations.map((r) => r.status));
      for (const status of ['confirmed', 'seated', 'completed', 'no_show', 'cancelled']) expect(statuses).toContain(status);
      if (venue === 'laTerrazza') expect(statuses).toContain('walk_in');
    });
  });

  describe.each(SAMPLE_NOWS)('of La Terrazza at %s', (now) => {
    const [state, tenant] = tenantOf(now, 'laTerrazza');
    const reservations = [...tenant.reservations.values()];
    const perDay = new Map<string, number>();
    for (const r of reservations) perDay.set(r.date.slice(0, 10), (perDay.get(r.date.slice(0, 10)) ?? 0) + 1);

    it('comes from at least 40 distinct guests', () => {
      expect(new Set(reservations.filter((r) => !r.customer.is_anonym).map((r) => r.customer.id)).size).toBeGreaterThanOrEqual(40);
      const busy = reservations.filter((r) => r.date.startsWith(SAMPLE.laTerrazza.busyDate(state)));
      expect(new Set(busy.map((r) => r.customer.id)).size).toBeGreaterThanOrEqual(40);
    });

    it('has days that differ: a quiet weekday, the busy Saturday, a holiday', () => {
      const busyDate = SAMPLE.laTerrazza.busyDate(state);
      expect(new Date(`${busyDate}T12:00:00Z`).getUTCDay()).toBe(6);
      expect(perDay.get(busyDate)).toBe(SAMPLE.laTerrazza.busyDateReservationCount);
      const quiet = [...perDay].filter(([date, n]) => [1, 2, 3, 4].includes(new Date(`${date}T12:00:00Z`).getUTCDay()) && n <= 5);
      expect(quiet.length).toBeGreaterThan(0);
      expect(new Set(perDay.values()).size).toBeGreaterThanOrEqual(6);
      const holiday = SAMPLE.laTerrazza.holidayDate(state);
      expect(tenant.off_days).toEqual([expect.objectContaining({ date: `${holiday} 00:00`, end_date: `${holiday} 23:59`, partial: false })]);
      const onHoliday = reservations.filter((r) => r.date.startsWith(holiday));
      expect(onHoliday.length).toBeGreaterThan(0);
      expect(onHoliday.every((r) => r.status === 'cancelled')).toBe(true);
    });

    it('keeps the busy Saturday at 50 reservations over 30 distinct checks', () => {
      const busy = reservations.filter((r) => r.date.startsWith(SAMPLE.laTerrazza.busyDate(state)));
      expect(busy).toHaveLength(50);
      expect(new Set(busy.map((r) => r.check?.id).filter(Boolean)).size).toBe(SAMPLE.laTerrazza.busyDateDistinctCheckCount);
    });
  });
});
