import { SAMPLE } from '../../src/sandbox';
import { closedPort } from '../support/upstreamServer';
import { startStack, type Stack } from '../support/stack';

/** CONTRACT.md: root query fields are nullable, so one failing root field never blanks another. */
describe('root query fields', () => {
  let stack: Stack;
  beforeAll(async () => {
    // POS refuses every connection: employees fails, the reservation service still answers.
    stack = await startStack({ env: { POS_BASE_URL: `http://127.0.0.1:${await closedPort()}`, UPSTREAM_RETRIES: '0' } });
  });
  afterAll(() => stack.close());

  it('keeps a loaded reservation when employees fails in the same request', async () => {
    const id = SAMPLE.laTerrazza.reservationWithoutCheckId;
    const res = await stack.gql<{ reservation: { id: string; guestCount: number } | null; employees: unknown }>(
      `query($id: ID!) { reservation(id: $id) { id guestCount } employees(perPage: 5) { nodes { id } } }`,
      { id },
    );
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ reservation: { id, guestCount: expect.any(Number) }, employees: null });
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors![0]).toMatchObject({ path: ['employees'], extensions: { code: 'UPSTREAM_UNAVAILABLE' } });
  });

  it('keeps a loaded employees page when reservations fails in the same request', async () => {
    const bad = await startStack({ env: { RESERVATION_BASE_URL: `http://127.0.0.1:${await closedPort()}`, UPSTREAM_RETRIES: '0' } });
    try {
      const res = await bad.gql<{ reservations: unknown; employees: { nodes: unknown[] } | null }>(
        `query($date: Date!) { reservations(date: $date) { nodes { id } } employees(perPage: 5) { nodes { id } } }`,
        { date: SAMPLE.today(bad.sandbox.state) },
      );
      expect(res.body.data!.reservations).toBeNull();
      expect(res.body.data!.employees!.nodes).toHaveLength(5);
      expect(res.body.errors![0]).toMatchObject({ path: ['reservations'], extensions: { code: 'UPSTREAM_UNAVAILABLE' } });
    } finally {
      await bad.close();
    }
  });
});
