import type { GatewayExecutor, GatewayGraphQLRequestContext } from '@apollo/server-gateway-interface';
import { getOperationAST, parse } from 'graphql';
import { jitExecution, type JitExecution } from '../../src/execution/jitExecution';
import { RECORD_TYPES, resolvers } from '../../src/resolvers';
import { createSampleState, SAMPLE } from '../../src/sandbox';
import { buildExecutableSchema, loadTypeDefs } from '../../src/schema';
import { Check } from '../../src/upstreams/pos/dto';
import { UpstreamRecord } from '../../src/upstreams/record';
import { recordOrigin } from '../support/resolvers';
import { startStack, type Stack } from '../support/stack';

const schema = buildExecutableSchema(loadTypeDefs(), resolvers, RECORD_TYPES);
const check = UpstreamRecord.of(Check, JSON.parse(JSON.stringify(createSampleState().tenants.laTerrazza.checks.get(SAMPLE.laTerrazza.openCheckId))), recordOrigin('pos', '/checks/:id'));

/** What Apollo hands the executor, for one document: the parts our executor reads. */
function requestFor(query: string, variables: Record<string, unknown> = {}): GatewayGraphQLRequestContext {
  const document = parse(query);
  return {
    source: query,
    document,
    operation: getOperationAST(document)!,
    operationName: null,
    request: { variables },
    context: { loaders: { checkById: { load: async () => check } } },
  } as unknown as GatewayGraphQLRequestContext;
}

async function executorOf(execution: JitExecution): Promise<GatewayExecutor> {
  const { executor } = await execution.load({ apollo: { key: undefined, keyHash: undefined, graphRef: undefined } });
  return executor!;
}

describe('jitExecution', () => {
  const query = `query($id: ID!) { check(id: $id) { id alias createdAt businessDate summary { totalAmount } items { quantity item { name } } } }`;

  it('runs a document on graphql-js until it has been used minUses times, then compiled, with the same answer', async () => {
    const execution = jitExecution(schema, { minUses: 3 });
    const execute = await executorOf(execution);
    const request = requestFor(query, { id: SAMPLE.laTerrazza.openCheckId });
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await execute(request));
    expect(execution.stats()).toEqual({ compiledDocuments: 1, compiledRuns: 2, interpretedRuns: 2 });
    expect(answers[0].errors).toBeUndefined();
    for (const answer of answers) expect(answer).toEqual(answers[0]);
  });

  it('reports a field the upstream got wrong at its path, the same on graphql-js and compiled', async () => {
    const body = JSON.parse(JSON.stringify(createSampleState().tenants.laTerrazza.checks.get(SAMPLE.laTerrazza.openCheckId))) as Record<string, unknown>;
    const bad = () => UpstreamRecord.of(Check, { ...body, alias: 7, business_date: '2026-02-30' }, recordOrigin('pos', '/checks/:id'));
    const execution = jitExecution(schema, { minUses: 2 });
    const execute = await executorOf(execution);
    const request = requestFor(query, { id: SAMPLE.laTerrazza.openCheckId });
    (request.context as { loaders: { checkById: { load: () => Promise<unknown> } } }).loaders.checkById.load = async () => bad();
    const [interpreted, compiled] = [await execute(request), await execute(request)];
    expect(execution.stats()).toMatchObject({ compiledRuns: 1, interpretedRuns: 1 });
    for (const answer of [interpreted, compiled]) {
      expect(answer.errors?.map((e) => [e.path, (e.originalError as { deviation?: unknown }).deviation])).toEqual([
        [['check', 'alias'], { field: 'alias', received: 'number' }],
        [['check', 'businessDate'], { field: 'business_date', received: 'invalid_date' }],
      ]);
      expect(answer.data).toMatchObject({ check: { id: SAMPLE.laTerrazza.openCheckId, alias: null, businessDate: null, summary: { totalAmount: expect.any(String) } } });
    }
  });

  it('compiles at most maxCompiledDocuments documents, however many are sent', async () => {
    const execution = jitExecution(schema, { minUses: 1, maxCompiledDocuments: 2 });
    const execute = await executorOf(execution);
    for (let i = 0; i < 5; i++) await execute(requestFor(`query { a${i}: check(id: "${SAMPLE.laTerrazza.openCheckId}") { id } }`));
    expect(execution.stats()).toEqual({ compiledDocuments: 2, compiledRuns: 2, interpretedRuns: 3 });
  });

  it('coerces each operation of a batch with its own variables, though they share one context', async () => {
    const execute = await executorOf(jitExecution(schema));
    const bad = requestFor(query, { id: null });
    const good = { ...requestFor(query, { id: SAMPLE.laTerrazza.openCheckId }), context: bad.context };
    expect((await execute(bad)).errors?.[0]?.message).toMatch(/^Variable "\$id" of non-null type "ID!" must not be null/);
    expect((await execute(good)).errors).toBeUndefined();
  });

  it('refuses a bad variable of a compiled document with graphql-js errors', async () => {
    const execution = jitExecution(schema, { minUses: 1 });
    const execute = await executorOf(execution);
    const result = await execute(requestFor(`query($n: Int) { employees(page: $n) { nodes { id } } }`, { n: 1.5 }));
    expect(result.errors?.[0]?.message).toMatch(/^Variable "\$n" got invalid value 1\.5/);
    expect(execution.stats().compiledRuns).toBe(0);
  });
});

describe('mutations through the gateway', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack.close());

  it('runs root mutation fields one after another and stops at the first that fails', async () => {
    const revenueCenterId = SAMPLE.laTerrazza.revenueCenterIds[0];
    const mutation = `mutation($rc: ID!, $unknown: ID!) {
      a: createOffDay(input: { revenueCenterId: $rc, date: "2099-12-30T00:00" }) { offDay { date } }
      b: updatePaymentRequest(input: { id: $unknown, amount: 20 }) { paymentRequest { amount } }
      c: createReservation(input: { revenueCenterId: $rc, date: "2099-12-24T19:30", customer: { firstName: "Ada" } }) { reservation { id } }
    }`;
    for (let i = 0; i < 4; i++) {
      stack.sandbox.resetRequests();
      const res = await stack.gql(mutation, { rc: revenueCenterId, unknown: SAMPLE.unknownId });
      expect(res.body.data).toBeNull();
      expect(res.body.errors).toEqual([expect.objectContaining({ path: ['b'], extensions: expect.objectContaining({ code: 'NOT_FOUND' }) })]);
      expect(stack.sandbox.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /api/v1/off-days', 'PATCH /v1/reservation-payments']);
    }
  });
});
