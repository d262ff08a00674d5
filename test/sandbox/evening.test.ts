import { startSandbox, type Sandbox } from '../../src/sandbox';
import { localDateOf } from '../../src/sandbox/venueTime';
import { call, posToken, reservationToken } from './sandboxClient';

interface Listed {
  id: string;
  status: string;
  date: string;
  estimated_discharged_at: string;
  discharged_at: string | null;
  occupied_seat_count: number;
  guest_count: number;
  check: { id: string; status: string } | null;
}

/** 18:00 at the venue (+03:00) on an ordinary Wednesday: parties at their tables, more booked for later. */
const START = new Date('2026-11-25T15:00:00Z');
const MINUTE = 60_000;

describe('the evening clock', () => {
  let sandbox: Sandbox;
  let now = START;

  beforeEach(async () => {
    now = START;
    sandbox = await startSandbox({ now: START, clock: () => now });
  });

  afterEach(async () => {
    await sandbox.close();
  });

  const today = async (): Promise<Listed[]> =>
    (await call(sandbox, 'reservation', 'GET', `/v1/reservations?date=${localDateOf(START)}&per_page=100`, { headers: reservationToken('laTerrazza') })).json.reservations as Listed[];
  const check = async (id: string) => (await call(sandbox, 'pos', 'GET', `/checks/${id}`, { headers: posToken('laTerrazza') })).json as { status: string; closed_at: number | null; summary: { unpaid_amount: string } };

  it('seats a booked party when its time comes, and sends it home with its check paid when its stay is over', async () => {
    const before = await today();
    const booked = before.find((r) => r.status === 'confirmed' && Date.parse(r.date) > START.getTime() && r.check !== null)
      ?? before.find((r) => r.status === 'confirmed' && Date.parse(r.date) > START.getTime());
    expect(booked).toBeDefined();

    now = new Date(Date.parse(booked!.date) + MINUTE);
    const arrived = (await today()).find((r) => r.id === booked!.id)!;
    expect(arrived).toMatchObject({ status: 'seated', occupied_seat_count: arrived.guest_count });

    now = new Date(Date.parse(booked!.estimated_discharged_at) + MINUTE);
    const left = (await today()).find((r) => r.id === booked!.id)!;
    expect(left).toMatchObject({ status: 'completed', discharged_at: booked!.estimated_discharged_at });
    if (left.check) {
      expect(left.check.status).toBe('closed');
      expect(await check(left.check.id)).toMatchObject({ status: 'closed', closed_at: Math.floor(Date.parse(booked!.estimated_discharged_at) / 1000), summary: { unpaid_amount: '0.00' } });
    }
  });

  it('closes the open checks of the parties seated at the start once they leave', async () => {
    const seated = (await today()).filter((r) => (r.status === 'seated' || r.status === 'walk_in') && r.check !== null && Date.parse(r.date) < START.getTime());
    expect(seated.length).toBeGreaterThan(0);
    now = new Date(Math.max(...seated.map((r) => Date.parse(r.estimated_discharged_at))) + MINUTE);
    const after = await today();
    for (const party of seated) {
      const later = after.find((r) => r.id === party.id)!;
      expect(later.status).toBe('completed');
      expect((await check(later.check!.id)).status).toBe('closed');
    }
  });
});
