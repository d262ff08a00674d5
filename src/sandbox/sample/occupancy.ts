import type { VenueTable } from '../records';
import { localToInstant, toVenueIso } from '../venueTime';
import type { VenueSeed } from './venueSeed';

const MINUTE_MS = 60_000;

/** The venue's tables and, in the seed's order, its revenue centers' ids. */
export interface TablePlan {
  all: readonly VenueTable[];
  revenueCenterIds: readonly string[];
}

/** The venue-local date and time of an instant. */
export function slotTime(instant: Date): { date: string; time: string } {
  const iso = toVenueIso(instant);
  return { date: iso.slice(0, 10), time: iso.slice(11, 16) };
}

/** Which table is taken when, so no two parties of the sample sit at one table at once. */
export class Occupancy {
  private readonly taken = new Map<string, Array<readonly [number, number]>>();

  isFree(table: VenueTable, start: Date, minutes: number): boolean {
    const [from, to] = [start.getTime(), start.getTime() + minutes * MINUTE_MS];
    return (this.taken.get(table.id) ?? []).every(([a, b]) => to <= a || from >= b);
  }

  reserve(table: VenueTable, start: Date, minutes: number): void {
    const list = this.taken.get(table.id) ?? [];
    list.push([start.getTime(), start.getTime() + minutes * MINUTE_MS]);
    this.taken.set(table.id, list);
  }

  /**
   * A free table at one of the day's slots: walk-ins at a revenue center that takes them (the bar), bookings
   * elsewhere. `e` turns the starting revenue center, slot and table, so a day's parties spread over the room.
   */
  place(plan: TablePlan, seed: VenueSeed, date: string, e: number, walkIn: boolean): { rcIndex: number; time: string; table: VenueTable } | undefined {
    const indexes = seed.revenueCenters.map((_, i) => i);
    const fitting = indexes.filter((i) => seed.revenueCenters[i].walkIns === walkIn);
    const rcs = fitting.length > 0 ? fitting : indexes;
    for (let r = 0; r < rcs.length; r++) {
      const rcIndex = rcs[(e + r) % rcs.length];
      const rc = seed.revenueCenters[rcIndex];
      const tables = plan.all.filter((t) => t.revenue_center_id === plan.revenueCenterIds[rcIndex]);
      for (let s = 0; s < rc.slots.length; s++) {
        const time = rc.slots[(e + s) % rc.slots.length];
        const start = localToInstant({ date, time });
        for (let t = 0; t < tables.length; t++) {
          const table = tables[(e * 5 + t) % tables.length];
          if (this.isFree(table, start, rc.stayMinutes)) return { rcIndex, time, table };
        }
      }
    }
    return undefined;
  }

  /** A table for a party seated at `start` (taken at once); the k-th of the candidates when every one is busy. */
  placeAt(candidates: readonly VenueTable[], start: Date, minutes: number, k: number): VenueTable {
    const table = candidates.find((t) => this.isFree(t, start, minutes)) ?? candidates[k % candidates.length];
    if (!table) throw new Error('Sandbox sample: a revenue center without tables');
    this.reserve(table, start, minutes);
    return table;
  }
}
