import { SAMPLE } from '../../src/sandbox';
import { LA_TERRAZZA, startStack, type Stack } from '../support/stack';

const CHECK_ID = SAMPLE.laTerrazza.openCheckId;
const JSON_ONLY = 'application/json';
const GRAPHQL_RESPONSE = 'application/graphql-response+json';

/** Every way a client's document can be refused before execution, with the code and message it gets. */
const REFUSALS: ReadonlyArray<{ what: string; body: Record<string, unknown>; code: string; message: RegExp }> = [
  { what: 'a syntax error', body: { query: '{ employees { ' }, code: 'GRAPHQL_PARSE_FAILED', message: /^Syntax Error: Expected Name/ },
  { what: 'too many tokens', body: { query: `{ check(id: "${CHECK_ID}") { ${'id '.repeat(2100)} } }` }, code: 'GRAPHQL_VALIDATION_FAILED', message: /^Token limit of 2000 exceeded/ },
  {
    what: 'a 200-alias flood (the token limit comes first)',
    body: { query: `{ ${Array.from({ length: 200 }, (_, i) => `a${i}: check(id: "${CHECK_ID}") { id alias status }`).join(' ')} }` },
    code: 'GRAPHQL_VALIDATION_FAILED',
    message: /^Token limit of 2000 exceeded/,
  },
  {
    what: 'too many aliases',
    body: { query: `{ ${Array.from({ length: 12 }, (_, i) => `a${i}: check(id: "${CHECK_ID}") { id }`).join(' ')} }` },
    code: 'GRAPHQL_VALIDATION_FAILED',
    message: /^Aliases limit of 10 exceeded/,
  },
  {
    what: 'too deep a query',
    body: { query: `{ reservation(id: "${SAMPLE.laTerrazza.reservationWithCheckId}") { check { employee { metafields { id } } } } }` },
    code: 'GRAPHQL_VALIDATION_FAILED',
    message: /depth limit of 4/i,
  },
  {
    what: 'too costly a query',
    // MAX_COST is in the unit of the schema's cost directives: ten checks with their lists estimate 400.
    body: {
      query: `{ ${Array.from({ length: 10 }, (_, i) => `a${i}: check(id: "${CHECK_ID}") { id alias status items { id status } payments { id } discounts { id } }`).join(' ')} }`,
    },
    code: 'GRAPHQL_VALIDATION_FAILED',
    message: /cost limit of 300 exceeded/i,
  },
  {
    what: 'too many directives',
    body: { query: `{ check(id: "${CHECK_ID}") { ${Array.from({ length: 25 }, () => 'id @include(if: true)').join(' ')} } }` },
    code: 'GRAPHQL_VALIDATION_FAILED',
    message: /^Directives limit of 20 exceeded/,
  },
  {
    what: 'too many possible upstream calls',
    body: { query: 'query($n: Int) { reservations(date: "2000-01-01", perPage: $n) { nodes { check { id } } } }', variables: { n: 100 } },
    code: 'GRAPHQL_VALIDATION_FAILED',
    message: /101 upstream calls/,
  },
  { what: 'an unknown field', body: { query: '{ nope }' }, code: 'GRAPHQL_VALIDATION_FAILED', message: /Cannot query field "nope"/ },
  {
    what: 'a variable of the wrong type',
    body: { query: 'query($n: Int) { employees(perPage: $n) { nodes { id } } }', variables: { n: 'many' } },
    code: 'BAD_USER_INPUT',
    message: /\$n/,
  },
];

describe('refusals of a client document', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ env: { MAX_DEPTH: '4', MAX_COST: '300', MAX_UPSTREAM_CALLS: '50' } });
  });
  afterAll(() => stack.close());
  beforeEach(() => stack.sandbox.resetRequests());

  const post = (body: Record<string, unknown>, accept?: string) =>
    fetch(`${stack.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(accept ? { accept } : {}), ...LA_TERRAZZA },
      body: JSON.stringify(body),
    });

  describe.each([
    ['application/graphql-response+json', GRAPHQL_RESPONSE, 400],
    ['no accept header', undefined, 400],
    ['accept */*', '*/*', 400],
    ['application/json alone (the spec prefers 200 there)', JSON_ONLY, 200],
  ])('under %s', (_, accept, status) => {
    it.each(REFUSALS)(`answers ${status} for $what, with its code, before any upstream call`, async ({ body, code, message }) => {
      const res = await post(body, accept);
      expect(res.status).toBe(status);
      const answer = (await res.json()) as { data?: unknown; errors: Array<{ message: string; extensions: { code: string } }> };
      expect(answer.data).toBeUndefined();
      expect(answer.errors[0].extensions.code).toBe(code);
      expect(answer.errors[0].message).toMatch(message);
      if (code !== 'GRAPHQL_PARSE_FAILED') expect(answer.errors.every((e) => !e.message.startsWith('Syntax Error'))).toBe(true);
      expect(stack.sandbox.requests).toHaveLength(0);
    });
  });

  it('keeps 200 and the data of an executed request that has a field error under application/json', async () => {
    const res = await post({ query: `{ check(id: "${SAMPLE.unknownId}") { id } }` }, JSON_ONLY);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ data: { check: null }, errors: [{ extensions: { code: 'NOT_FOUND' } }] });
  });
});
