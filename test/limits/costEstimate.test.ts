import { Kind, buildSchema, parse, type OperationDefinitionNode } from 'graphql';
import { costDirectivesOf } from '../../src/limits/costDirectives';
import { DEFAULT_LIST_SIZE, actualCost, estimateCost } from '../../src/limits/costEstimate';
import { SAMPLE } from '../../src/sandbox';
import { loadTypeDefs } from '../../src/schema';
import { startStack, type Stack } from '../support/stack';

const schema = buildSchema(loadTypeDefs());

function estimate(query: string, variables: Record<string, unknown> = {}) {
  const document = parse(query);
  const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
  return estimateCost({ schema, document, operation, variables });
}

describe('estimateCost, remembered', () => {
  const operationOf = (query: string) => {
    const document = parse(query);
    return { schema, document, operation: document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)! };
  };

  it('walks an operation once for every value of the variables its walk reads', () => {
    const op = operationOf('query ($n: Int, $date: Date!) { reservations(date: $date, perPage: $n) { nodes { check { id } } } }');
    expect(estimateCost({ ...op, variables: { n: 3, date: '2026-01-01' } }).upstreamCalls).toBe(4);
    expect(estimateCost({ ...op, variables: { n: 7, date: '2026-01-01' } }).upstreamCalls).toBe(8);
    // Equal values (in fresh objects) give the very estimate remembered, another value of $n a walk of its own.
    const once = estimateCost({ ...op, variables: { n: 5, date: '2026-01-01' } });
    expect(estimateCost({ ...op, variables: { n: 5, date: '2026-01-01' } })).toBe(once);
    expect(estimateCost({ ...op, variables: { n: 5, date: '2026-01-02' } })).toBe(once);
    expect(estimateCost({ ...op, variables: { n: 6, date: '2026-01-01' } })).not.toBe(once);
  });

  it('takes the argument default for an absent variable, as graphql-js executes it, and no size for null', () => {
    const op = operationOf('query ($n: Int, $date: Date!) { reservations(date: $date, perPage: $n) { nodes { check { id } } } }');
    expect(estimateCost({ ...op, variables: { date: '2026-01-01' } }).upstreamCalls).toBe(51);
    expect(estimateCost({ ...op, variables: { n: null, date: '2026-01-01' } }).upstreamCalls).toBe(1 + DEFAULT_LIST_SIZE);
    expect(estimateCost({ ...op, variables: { date: '2026-01-01' } }).upstreamCalls).toBe(51);
  });

  it('keeps one estimate for an operation whose walk reads no variable (a check by id)', () => {
    const op = operationOf('query ($id: ID!) { check(id: $id) { id items { id } } }');
    const first = estimateCost({ ...op, variables: { id: 'a' } });
    expect(estimateCost({ ...op, variables: { id: 'b' } })).toBe(first);
    expect(first).toEqual({ cost: 10 + DEFAULT_LIST_SIZE, upstreamCalls: 1 });
  });
});

describe('estimateCost', () => {
  it('counts a field with @cost as its weight and one upstream call', () => {
    expect(estimate('{ check(id: "x") { id alias } }')).toEqual({ cost: 10, upstreamCalls: 1 });
  });

  it('multiplies a page\'s nodes by perPage, with the check link\'s fan-out', () => {
    // reservations 10, pageInfo 1, and per reservation: the object 1 plus its check 10.
    expect(estimate('{ reservations(date: "2026-01-01", perPage: 100) { pageInfo { totalCount } nodes { id check { id } } } }')).toEqual({
      cost: 10 + 1 + 100 * (1 + 10),
      upstreamCalls: 1 + 100,
    });
  });

  it('costs the example day of docs/clients.md at 610', () => {
    expect(estimate('{ reservations(date: "2026-01-01") { nodes { check { summary { totalAmount } } } } }')).toEqual({ cost: 610, upstreamCalls: 51 });
  });

  it('takes perPage from variables, and its schema default when it is not given', () => {
    const query = 'query ($n: Int) { reservations(date: "2026-01-01", perPage: $n) { nodes { check { id } } } }';
    expect(estimate(query, { n: 3 }).upstreamCalls).toBe(4);
    expect(estimate('{ reservations(date: "2026-01-01") { nodes { check { id } } } }').upstreamCalls).toBe(51);
  });

  it('counts aliases and fragments', () => {
    const query = `fragment C on Reservation { check { id } }
      { a: reservation(id: "x") { ...C } b: reservation(id: "y") { ... on Reservation { ...C } } }`;
    expect(estimate(query)).toEqual({ cost: 40, upstreamCalls: 4 });
  });

  it('assumes lists without @listSize hold DEFAULT_LIST_SIZE elements, free of upstream calls', () => {
    expect(estimate('{ check(id: "x") { items { id } } }')).toEqual({ cost: 10 + DEFAULT_LIST_SIZE * 1, upstreamCalls: 1 });
  });

  it('counts mutations and leaves introspection and __typename free', () => {
    expect(estimate('mutation { createOffDay(input: {revenueCenterId: "x", date: "2026-01-01T00:00"}) { offDay { date } } }')).toEqual({ cost: 11, upstreamCalls: 1 });
    expect(estimate('{ __typename __schema { types { name } } }')).toEqual({ cost: 0, upstreamCalls: 0, introspection: true });
  });

  it('refuses an operation that gives no slicing argument to a list that requires one', () => {
    const strict = buildSchema(`${loadTypeDefs().replace(/^"[^\n]*"\ntype Query \{[\s\S]*?^\}$/m, '')}
      type Query { list(first: Int, last: Int): [Int] @listSize(slicingArguments: ["first", "last"]) }`);
    const document = parse('{ list }');
    const operation = document.definitions[0] as OperationDefinitionNode;
    expect(() => estimateCost({ schema: strict, document, operation })).toThrow(/exactly one of first, last/);
  });

  it('stops on cost directives whose arguments break the spec, naming the field', () => {
    const bad = buildSchema(`directive @cost(weight: String!) on FIELD_DEFINITION
      type Query { a: Int @cost(weight: "ten") }`);
    expect(() => costDirectivesOf(bad)).toThrow(/Query\.a @cost: weight must be a non-negative number/);
  });

  it('costs what was actually returned by the same weights, with the real list lengths', () => {
    const document = parse('{ c: check(id: "x") { id items { id } } r: reservations(date: "2026-01-01") { nodes { ...R } } } fragment R on Reservation { check { id } }');
    const operation = document.definitions[0] as OperationDefinitionNode;
    const data = { c: { id: 'x', items: [{ id: '1' }, { id: '2' }, { id: '3' }] }, r: { nodes: [{ check: { id: 'y' } }, { check: null }] } };
    // check 10 + 3 items; reservations 10 + 2 reservations (1 each) + their check fields (10 each).
    expect(actualCost({ schema, document, operation, data })).toBe(13 + 10 + 2 * (1 + 10));
  });

  describe('against the sandbox', () => {
    let stack: Stack;
    beforeAll(async () => (stack = await startStack()));
    afterAll(() => stack.close());
    beforeEach(() => stack.sandbox.resetRequests());

    it('bounds the upstream calls an operation actually makes', async () => {
      const query = 'query ($date: Date!) { reservations(date: $date, perPage: 50) { nodes { id check { id } } } }';
      const variables = { date: SAMPLE.laTerrazza.busyDate(stack.sandbox.state) };
      const res = await stack.gql(query, variables);
      expect(res.body.errors).toBeUndefined();
      // 1 list call + one per distinct check (30), within the estimate's 1 + 50.
      expect(stack.sandbox.requests).toHaveLength(1 + SAMPLE.laTerrazza.busyDateDistinctCheckCount);
      expect(estimate(query, variables).upstreamCalls).toBe(51);
    });
  });
});
