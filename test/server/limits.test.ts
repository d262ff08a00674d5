import { randomUUID } from 'node:crypto';
import { SAMPLE } from '../../src/sandbox';
import { LA_TERRAZZA, startStack, type GraphQLResponse, type Stack } from '../support/stack';

const CHECK_ID = SAMPLE.laTerrazza.openCheckId;

/** POSTs a raw JSON body (a batch, an oversized request) to the gateway with La Terrazza's credentials. */
async function post(stack: Stack, body: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${stack.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...LA_TERRAZZA },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) };
}

/** A refusal: errors, no data, and not one upstream request. */
function expectRefusedBeforeUpstream(stack: Stack, res: GraphQLResponse, message: RegExp): void {
  expect(res.body.errors?.length).toBeGreaterThan(0);
  expect(res.body.data ?? undefined).toBeUndefined();
  expect(res.body.errors!.map((e) => e.message).join('\n')).toMatch(message);
  expect(stack.sandbox.requests).toHaveLength(0);
}

const aliases = (n: number) => Array.from({ length: n }, (_, i) => `a${i}: check(id: "${CHECK_ID}") { id }`).join('\n');

describe('query limits', () => {
  describe('with the default settings', () => {
    let stack: Stack;
    beforeAll(async () => {
      stack = await startStack();
    });
    afterAll(() => stack.close());
    beforeEach(() => stack.sandbox.resetRequests());

    it('serves a few aliases of a root field (the limit is not in the way)', async () => {
      const res = await stack.gql(`{ ${aliases(3)} }`);
      expect(res.body.errors).toBeUndefined();
      expect(stack.sandbox.requests.length).toBeGreaterThan(0);
    });

    it('refuses an alias flood before any upstream call', async () => {
      const res = await stack.gql(`{ ${aliases(50)} }`);
      expectRefusedBeforeUpstream(stack, res, /alias/i);
    });

    it('refuses a query with too many tokens before any upstream call', async () => {
      const res = await stack.gql(`{ check(id: "${CHECK_ID}") { ${'id '.repeat(2100)} } }`);
      expectRefusedBeforeUpstream(stack, res, /token/i);
    });

    it('refuses a query with too many directives before any upstream call', async () => {
      const fields = Array.from({ length: 50 }, () => 'id @include(if: true)').join(' ');
      const res = await stack.gql(`{ check(id: "${CHECK_ID}") { ${fields} } }`);
      expectRefusedBeforeUpstream(stack, res, /directive/i);
    });

    it.each([1, 2])('refuses a batch of %i operations with 400 when batching is off', async (size) => {
      const res = await post(stack, Array.from({ length: size }, () => ({ query: `{ check(id: "${CHECK_ID}") { id } }` })));
      expect(res.status).toBe(400);
      expect(stack.sandbox.requests).toHaveLength(0);
    });

    it('suggests field names outside production', async () => {
      const res = await stack.gql(`{ chek(id: "${CHECK_ID}") { id } }`);
      expect(res.body.errors?.[0]?.message).toMatch(/Did you mean/);
    });

    it('counts aliases and fragments toward MAX_UPSTREAM_CALLS (150 by default)', async () => {
      const res = await stack.gql(`fragment R on ReservationPage { nodes { check { id } } }
        { a: reservations(date: "2000-01-01", perPage: 100) { ...R } b: reservations(date: "2000-01-01", perPage: 100) { ...R } }`);
      expectRefusedBeforeUpstream(stack, res, /202 upstream calls/);
    });
  });

  describe('with small limits set', () => {
    let stack: Stack;
    beforeAll(async () => {
      stack = await startStack({ env: { MAX_DEPTH: '4', MAX_COST: '30', MAX_BATCH_SIZE: '2', MAX_BODY_BYTES: '2048', MAX_UPSTREAM_CALLS: '50' } });
    });
    afterAll(() => stack.close());
    beforeEach(() => stack.sandbox.resetRequests());

    it('serves a query within every limit', async () => {
      const res = await stack.gql(`{ check(id: "${CHECK_ID}") { id employee { id } } }`);
      expect(res.body.errors).toBeUndefined();
      expect(stack.sandbox.requests).toHaveLength(1);
    });

    it('refuses a query deeper than MAX_DEPTH before any upstream call', async () => {
      const res = await stack.gql(`{ reservation(id: "${SAMPLE.laTerrazza.reservationWithCheckId}") { check { employee { metafields { id } } } } }`);
      expectRefusedBeforeUpstream(stack, res, /depth/i);
    });

    it('refuses a query costlier than MAX_COST before any upstream call', async () => {
      const res = await stack.gql(
        `{ check(id: "${CHECK_ID}") { id alias note status sequence items { id status quantity notes } payments { id paidAmount } discounts { id name } offers { id name } } }`,
      );
      expectRefusedBeforeUpstream(stack, res, /cost/i);
    });

    it('counts the perPage fan-out of a list toward MAX_UPSTREAM_CALLS', async () => {
      const wide = `query($n: Int) { reservations(date: "2000-01-01", perPage: $n) { nodes { id check { id } } } }`;
      expect((await stack.gql(wide, { n: 1 })).body.errors).toBeUndefined();
      stack.sandbox.resetRequests();
      // 1 list call + 100 possible check calls > 50.
      expectRefusedBeforeUpstream(stack, await stack.gql(wide, { n: 100 }), /101 upstream calls.*MAX_UPSTREAM_CALLS/);
    });


    it('answers a batch of up to MAX_BATCH_SIZE operations', async () => {
      const res = await post(stack, [
        { query: `{ check(id: "${CHECK_ID}") { id } }` },
        { query: '{ employees(perPage: 1) { nodes { id } } }' },
      ]);
      expect(res.status).toBe(200);
      expect(res.body).toEqual([{ data: { check: { id: CHECK_ID } } }, { data: { employees: { nodes: [{ id: expect.any(String) }] } } }]);
    });

    it('refuses a batch larger than MAX_BATCH_SIZE with 400 and no upstream call', async () => {
      const res = await post(stack, Array.from({ length: 3 }, () => ({ query: `{ check(id: "${CHECK_ID}") { id } }` })));
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body)).toContain('at most 2');
      expect(stack.sandbox.requests).toHaveLength(0);
    });

    it('refuses a body over MAX_BODY_BYTES with 413 and no upstream call', async () => {
      const res = await post(stack, { query: `{ check(id: "${CHECK_ID}") { id } }`, variables: { pad: 'x'.repeat(4096) } });
      expect(res.status).toBe(413);
      expect(stack.sandbox.requests).toHaveLength(0);
    });
  });

  describe('in production', () => {
    let stack: Stack;
    beforeAll(async () => {
      stack = await startStack({ env: { NODE_ENV: 'production', SINGLE_REPLICA: 'true' } });
    });
    afterAll(() => stack.close());
    beforeEach(() => stack.sandbox.resetRequests());

    it('refuses introspection, naming the gateway\'s own setting', async () => {
      const res = await stack.gql('{ __schema { queryType { name } } }');
      expect(res.status).toBe(400);
      expect(res.body.data ?? undefined).toBeUndefined();
      expect(res.body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
      expect(res.body.errors?.[0]?.message).toMatch(/INTROSPECTION=true/);
      expect(res.body.errors?.[0]?.message).not.toMatch(/ApolloServer/);
      const type = await stack.gql('{ __type(name: "Check") { name } }');
      expect(type.body.errors?.[0]?.message).toMatch(/INTROSPECTION=true/);
    });

    it('still answers __typename', async () => {
      const res = await stack.gql('{ __typename }');
      expect(res.body).toEqual({ data: { __typename: 'Query' } });
    });

    it('suggests no field names', async () => {
      const res = await stack.gql(`{ chek(id: "${CHECK_ID}") { id } }`);
      expect(res.body.errors?.length).toBeGreaterThan(0);
      expect(JSON.stringify(res.body.errors)).not.toMatch(/Did you mean|"check"/);
      expect(stack.sandbox.requests).toHaveLength(0);
    });

    it('suggests no argument or type names either', async () => {
      const res = await stack.gql(`{ check(idd: "${CHECK_ID}") { id } }`);
      expect(res.body.errors?.length).toBeGreaterThan(0);
      expect(JSON.stringify(res.body.errors)).not.toMatch(/Did you mean/);
    });

    it('does not serve the explorer', async () => {
      const res = await fetch(`${stack.url}/graphql`, { headers: { accept: 'text/html' } });
      expect(await res.text()).not.toMatch(/embeddable-sandbox|graphiql/i);
    });

    it('allows introspection when INTROSPECTION is true', async () => {
      const open = await startStack({ env: { NODE_ENV: 'production', SINGLE_REPLICA: 'true', INTROSPECTION: 'true' } });
      try {
        const res = await open.gql('{ __schema { queryType { name } } }');
        expect(res.body).toEqual({ data: { __schema: { queryType: { name: 'Query' } } } });
      } finally {
        await open.close();
      }
    });
  });

  describe('path injection through ids', () => {
    let stack: Stack;
    beforeAll(async () => {
      stack = await startStack();
    });
    afterAll(() => stack.close());
    beforeEach(() => stack.sandbox.resetRequests());

    const IDS = ['..', '%2e%2e', 'a/b', '1?x=1', 'http://evil.test/x', 'abc\r\nX: y', `${randomUUID()}/../employees`, `${randomUUID()}%2F..%2Femployees`, ''];
    const OPERATIONS = [
      { name: 'check(id)', query: 'query ($id: ID!) { check(id: $id) { id } }', field: 'id' },
      { name: 'reservation(id)', query: 'query ($id: ID!) { reservation(id: $id) { id } }', field: 'id' },
      {
        name: 'updatePaymentRequest(input: {id})',
        query: 'mutation ($id: ID!) { updatePaymentRequest(input: { id: $id, amount: "10.00" }) { paymentRequest { id } } }',
        field: 'input.id',
      },
    ];
    const cases = OPERATIONS.flatMap((op) => IDS.map((id) => ({ ...op, id })));

    it.each(cases)('refuses $name with id $id as BAD_USER_INPUT before any upstream call', async ({ query, field, id }) => {
      const res = await stack.gql(query, { id });
      expect(res.body.errors).toHaveLength(1);
      expect(res.body.errors![0].extensions).toEqual({ code: 'BAD_USER_INPUT', field });
      expect(stack.sandbox.requests).toHaveLength(0);
    });
  });
});
