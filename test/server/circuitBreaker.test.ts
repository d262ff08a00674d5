import { SAMPLE } from '../../src/sandbox';
import { startFaultProxy, type FaultProxy, type InjectedFault } from '../../src/sandbox/faultProxy';
import { eventually } from '../support/gatewayProcess';
import { startStack, type GraphQLResponse, type Stack } from '../support/stack';

/**
 * The breaker through the whole gateway: sandbox services behind fault-injecting proxies, the gateway in front, the
 * breaker on its production defaults unless a test says otherwise. Faults are drawn from a seed per call, so a run
 * always meets the same faults, whatever the interleaving.
 */

/** Short upstream budgets so that hangs and stalled bodies cost little; a Retry-After is not waited for. */
const FAST_FAULTS = { UPSTREAM_HEADERS_TIMEOUT_MS: '300', UPSTREAM_BODY_TIMEOUT_MS: '300', UPSTREAM_RETRY_AFTER_MAX_MS: '500' };

const DAY = `query Day($date: Date!) { reservations(date: $date, perPage: 50) { nodes { id check { id alias } } } }`;
const CHECK = `query Check($id: ID!) { check(id: $id) { id alias } }`;
const STAFF = `query Staff { employees(perPage: 5) { nodes { id firstName } } }`;

interface DayData {
  reservations: { nodes: Array<{ id: string; check: { id: string; alias: string } | null }> } | null;
}

interface Harness {
  stack: Stack;
  pos: FaultProxy;
  reservation: FaultProxy;
  date: string;
  /** The busy day's distinct check ids, read before any fault. */
  checkIds: string[];
  /** The check each of the busy day's reservations links to, for those that have one (some have none). */
  checkOf: ReadonlyMap<string, string>;
  circuitLines(): Array<Record<string, unknown>>;
  close(): Promise<void>;
}

async function start(env: Record<string, string>, pos: FaultProxy, reservation?: FaultProxy): Promise<Harness> {
  const res = reservation ?? (await startFaultProxy());
  const stack = await startStack({ env: { ...FAST_FAULTS, ...env, POS_BASE_URL: pos.url, RESERVATION_BASE_URL: res.url } });
  pos.target = stack.sandbox.posUrl;
  res.target = stack.sandbox.reservationUrl;
  const date = SAMPLE.laTerrazza.busyDate(stack.sandbox.state);
  const [posRate, resRate] = [pos.rate, res.rate];
  pos.rate = res.rate = 0;
  const first = await stack.gql<DayData>(DAY, { date });
  pos.rate = posRate;
  res.rate = resRate;
  const checkOf = new Map(first.body.data!.reservations!.nodes.flatMap((n) => (n.check ? [[n.id, n.check.id] as const] : [])));
  const checkIds = [...new Set(checkOf.values())];
  return {
    stack,
    pos,
    reservation: res,
    date,
    checkIds,
    checkOf,
    circuitLines: () => stack.logs.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.circuit !== undefined),
    async close() {
      await stack.close();
      await Promise.all([pos.close(), res.close()]);
    },
  };
}

/** Runs `tasks` with `concurrency` of them at a time. */
async function pool<T>(tasks: Array<() => Promise<T>>, concurrency: number): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return results;
}

const codesOf = (res: GraphQLResponse<unknown>) => (res.body.errors ?? []).map((e) => e.extensions?.code);

describe('the circuit breaker through the gateway', () => {
  describe('under 10 % of random faults on both services', () => {
    let h: Harness;
    beforeAll(async () => {
      const faults: InjectedFault[] = ['status500', 'status503', 'status503RetryAfter', 'reset', 'nonJson', 'wrongShape', 'hang', 'slowBody'];
      h = await start({}, await startFaultProxy({ rate: 0.1, faults, seed: 15 }), await startFaultProxy({ rate: 0.1, faults, seed: 51 }));
    });
    afterAll(() => h.close());

    it('never opens a circuit over a few thousand calls of day lists, checks and employees, and serves about 90 % of the checks', async () => {
      const tasks: Array<() => Promise<{ kind: string; res: GraphQLResponse }>> = [];
      for (let i = 0; i < 60; i++) {
        tasks.push(async () => ({ kind: 'day', res: await h.stack.gql(DAY, { date: h.date }) }));
        for (let j = 0; j < 4; j++) tasks.push(async () => ({ kind: 'check', res: await h.stack.gql(CHECK, { id: h.checkIds[(i * 4 + j) % h.checkIds.length] }) }));
        tasks.push(async () => ({ kind: 'staff', res: await h.stack.gql(STAFF) }));
      }
      const results = await pool(tasks, 6);

      const calls = h.pos.stats.calls + h.reservation.stats.calls;
      const injected = [h.pos, h.reservation].reduce((sum, p) => sum + Object.values(p.stats.faults).reduce((a, b) => a + b, 0), 0);
      // Concurrent identical reads are joined (src/upstreams/sharedReads.ts): fewer calls than the 2,160 reads.
      expect(calls).toBeGreaterThan(1000);
      expect(injected / calls).toBeGreaterThan(0.07);
      expect(injected / calls).toBeLessThan(0.13);
      expect(h.circuitLines()).toEqual([]);
      const metrics = await (await fetch(`${h.stack.url}/metrics`)).text();
      expect(metrics).toContain('tablegraph_upstream_circuit_state{service="pos"} 0');
      expect(metrics).toContain('tablegraph_upstream_circuit_state{service="reservation"} 0');

      // Of the checks the day lists that arrived asked for, and of the single checks, the share served.
      let asked = 0;
      let served = 0;
      for (const { kind, res } of results) {
        expect(res.status).toBe(200);
        expect(codesOf(res)).not.toContain('INTERNAL_SERVER_ERROR');
        if (kind === 'day') {
          // Only reservations that link to a check ask POS for one.
          const nodes = ((res.body.data as unknown as DayData | null)?.reservations?.nodes ?? []).filter((n) => h.checkOf.has(n.id));
          asked += nodes.length;
          served += nodes.filter((n) => n.check !== null).length;
        }
        if (kind === 'check') {
          asked += 1;
          if ((res.body.data as { check: unknown } | null)?.check) served += 1;
        }
      }
      expect(asked).toBeGreaterThan(2000);
      expect(served / asked).toBeGreaterThan(0.85);
    });
  });

  describe('when one check keeps failing', () => {
    let h: Harness;
    let broken: string;
    beforeAll(async () => {
      const pos = await startFaultProxy({ alwaysFail: (method, path) => method === 'GET' && path === `/checks/${broken}` });
      h = await start({}, pos);
      broken = h.checkIds[0]!;
    });
    afterAll(() => h.close());

    it('answers that check with its error again and again and never opens the circuit', async () => {
      const tasks: Array<() => Promise<GraphQLResponse>> = [];
      for (let i = 0; i < 40; i++) {
        tasks.push(() => h.stack.gql(DAY, { date: h.date }));
        for (let j = 0; j < 3; j++) tasks.push(() => h.stack.gql(CHECK, { id: broken }));
      }
      const results = await pool(tasks, 4);
      const direct = results.filter((_r, i) => i % 4 !== 0);
      for (const res of direct) expect({ data: res.body.data, codes: codesOf(res) }).toEqual({ data: { check: null }, codes: ['UPSTREAM_ERROR'] });
      for (const res of results.filter((_r, i) => i % 4 === 0)) {
        const nodes = (res.body.data as unknown as DayData).reservations!.nodes;
        // Exactly the reservations on the broken check lose it; every other linked check arrives.
        const onBroken = nodes.filter((n) => h.checkOf.get(n.id) === broken);
        expect(onBroken.length).toBeGreaterThan(0);
        expect(onBroken.every((n) => n.check === null)).toBe(true);
        expect(nodes.filter((n) => n.check !== null).length).toBe(h.checkOf.size - onBroken.length);
      }
      // 160 reads of it, 4 at a time: joined while in flight, never kept, so at least one call per 4 reads.
      expect(h.pos.stats.faults.status500).toBeGreaterThanOrEqual(40);
      expect(h.circuitLines()).toEqual([]);
    });
  });

  describe.each<{ outage: string; begin: (p: FaultProxy) => Promise<void>; end: (p: FaultProxy) => Promise<void> }>([
    { outage: 'every connection refused', begin: (p) => p.refuse(), end: (p) => p.accept() },
    {
      outage: 'every call answered 503',
      begin: async (p) => {
        p.rate = 1;
      },
      end: async (p) => {
        p.rate = 0;
      },
    },
  ])('in a full POS outage ($outage)', ({ begin, end }) => {
    let h: Harness;
    beforeAll(async () => {
      h = await start({ BREAKER_HALF_OPEN_AFTER_MS: '300' }, await startFaultProxy({ faults: ['status503'] }));
    });
    afterAll(() => h.close());

    it('opens the circuit within two day lists, fails checks fast meanwhile, and closes after the outage ends', async () => {
      await begin(h.pos);
      for (let i = 0; i < 2; i++) await h.stack.gql(DAY, { date: h.date });
      expect(h.circuitLines().map((l) => l.msg)).toEqual(['circuit of the pos service is open']);

      const callsBefore = h.pos.stats.calls;
      const during = await h.stack.gql<DayData>(DAY, { date: h.date });
      expect(during.body.data!.reservations!.nodes.length).toBe(SAMPLE.laTerrazza.busyDateReservationCount);
      expect(during.body.data!.reservations!.nodes.every((n) => n.check === null)).toBe(true);
      expect(new Set(codesOf(during))).toEqual(new Set(['UPSTREAM_UNAVAILABLE']));
      expect(during.body.errors![0].message).toMatch(/circuit is open/);
      expect(h.pos.stats.calls).toBe(callsBefore);

      await end(h.pos);
      const recovered = await eventually(async () => {
        const res = await h.stack.gql<DayData>(DAY, { date: h.date });
        return res.body.errors === undefined;
      });
      expect(recovered).toBe(true);
      const states = h.circuitLines().map((l) => l.circuit);
      expect(states[0]).toBe('open');
      expect(states.at(-1)).toBe('closed');
      expect(states).toContain('half-open');
      const check = await h.stack.gql(CHECK, { id: h.checkIds[1] });
      expect(check.body).toEqual({ data: { check: { id: h.checkIds[1], alias: expect.any(String) } } });
    });
  });
});
