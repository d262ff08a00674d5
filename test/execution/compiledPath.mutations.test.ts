import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OperationTypeNode, getOperationAST, parse, print } from 'graphql';
import { SAMPLE, SANDBOX_CREDENTIALS, createSampleState } from '../../src/sandbox';
import { startFaultProxy, type FaultProxy } from '../../src/sandbox/faultProxy';
import { curlRequests, fencedBlocks, readDoc } from '../support/readme';
import { startStack, type Stack } from '../support/stack';
import { MANIFEST_PATH, byPersistedQuery, manifest } from '../trustedDocuments/support';
import { ANONYMOUS, FRUGAL_KEY, TRUSTED_ONLY_CLIENT, clientsFile, comparedHeaders, countedMetrics, idsIn, maskNewIds, maskRetryWait, requestLog, type Answer } from './differential';

/**
 * Mutations through a gateway with COMPILED_PATH on and one with it off. The compiled executor never takes a mutation
 * (graphql-jit would run the root fields on past a failed one), so both must answer through Apollo alike. Generated
 * from every mutation of the trusted-document manifest (operations/) and of the docs' examples: a valid input and
 * inputs the gateway or the service refuses, by id and as text (and by `documentId`), with and without an
 * Idempotency-Key (and its replay), under each client policy (a first-party app, a partner under a small maxCost, an
 * app bound to trusted documents, the anonymous policy), with the reservation service answering, answering 500, or
 * not at all. Each gateway has its own sandbox behind a fault proxy; every mutation goes to both, so their states stay
 * equal, and each valid input is new (its own date, note, amount).
 */

type Fault = 'ok' | 'status500' | 'hang';

interface Side {
  stack: Stack;
  proxy: FaultProxy;
  fault: { now: Fault };
}

/** A gateway in front of its own sandbox, its reservation service behind a fault proxy that does what `fault.now` says. */
async function startSide(env: Record<string, string>, now: Date): Promise<Side> {
  const fault = { now: 'ok' as Fault };
  const proxy = await startFaultProxy({ faults: ['hang'], alwaysFail: () => fault.now === 'status500' });
  const stack = await startStack({ sandbox: { now }, env: { ...env, RESERVATION_BASE_URL: proxy.url } });
  proxy.target = stack.sandbox.reservationUrl;
  return { stack, proxy, fault };
}

function setFault(side: Side, fault: Fault): void {
  side.fault.now = fault;
  side.proxy.rate = fault === 'hang' ? 1 : 0;
}

const LT = SAMPLE.laTerrazza;

/** A venue-local instant no other request books: the nth minute of an evening in 2099. */
const slot = (n: number, time = true): string => {
  const day = new Date(Date.UTC(2099, 0, 1 + n));
  return `${day.toISOString().slice(0, 10)}T${time ? `19:${String(n % 60).padStart(2, '0')}` : '00:00'}`;
};

/**
 * For each input type of a manifest mutation: a valid input, new for each `n`, and inputs refused, each by the
 * gateway's schema or input rules, or by the service.
 */
const INPUTS: Record<string, { valid: (n: number) => Record<string, unknown>; refused: Array<[string, (n: number) => Record<string, unknown>]> }> = {
  CreateReservationInput: {
    valid: (n) => ({ revenueCenterId: LT.revenueCenterIds[0], date: slot(n), guestCount: 2, note: `diff ${n}`, customer: { firstName: 'Ada', lastName: `Diff${n}` } }),
    refused: [
      ['revenueCenterId not a UUID', (n) => ({ revenueCenterId: 'not-a-uuid', date: slot(n), guestCount: 2, customerId: LT.customerId })],
      ['guests beyond capacity', (n) => ({ revenueCenterId: LT.revenueCenterIds[0], date: slot(n), guestCount: 900, customerId: LT.customerId })],
      ['an unknown customer', (n) => ({ revenueCenterId: LT.revenueCenterIds[0], date: slot(n), guestCount: 2, customerId: SAMPLE.unknownId })],
    ],
  },
  CreateCalendarReservationInput: {
    valid: (n) => ({ revenueCenterId: LT.revenueCenterIds[0], tableId: LT.tableIds[0], date: slot(n), guestCount: 2, note: `diff ${n}` }),
    refused: [
      ['guestCount a string', (n) => ({ revenueCenterId: LT.revenueCenterIds[0], tableId: LT.tableIds[0], date: slot(n), guestCount: 'two' })],
      ['an unknown table', (n) => ({ revenueCenterId: LT.revenueCenterIds[0], tableId: SAMPLE.unknownId, date: slot(n) })],
    ],
  },
  CreateOffDayInput: {
    valid: (n) => ({ revenueCenterId: LT.revenueCenterIds[0], date: slot(n, false), partial: true, startTime: '18:00', endTime: '23:00', translations: [{ locale: 'en', text: `diff ${n}` }] }),
    refused: [
      ['a time of 25:00', (n) => ({ revenueCenterId: LT.revenueCenterIds[0], date: slot(n, false), partial: true, startTime: '25:00', endTime: '23:00' })],
      ['an unknown revenue center', (n) => ({ revenueCenterId: SAMPLE.unknownId, date: slot(n, false) })],
    ],
  },
  UpdatePaymentRequestInput: {
    valid: (n) => ({ id: LT.paymentRequestId, amount: `${100 + n}.50`, currency: 'EUR', email: `guest${n}@example.test`, sendEmail: true, expirationTime: 48 }),
    refused: [
      ['a negative amount', () => ({ id: LT.paymentRequestId, amount: '-1.00' })],
      ['an unknown payment request', (n) => ({ id: SAMPLE.unknownId, amount: `${100 + n}.00` })],
    ],
  },
};

interface Generated {
  name: string;
  body: unknown;
  headers: Record<string, string>;
  fault: Fault;
  /** Sent a second time with the same Idempotency-Key: the replay is compared too. */
  replay?: boolean;
}

let keys = 0;
/** A fresh Idempotency-Key: the same on both gateways (each has its own store), another for every request. */
const withKey = (): Record<string, string> => ({ 'idempotency-key': `diff-mutation-${process.pid}-${++keys}` });
const TRUSTED_ONLY = { 'apollographql-client-name': TRUSTED_ONLY_CLIENT };
const FRUGAL = { 'x-api-key': FRUGAL_KEY };
const FAULTS: Fault[] = ['ok', 'status500', 'hang'];

/** The mutations of the manifest and the docs' examples, in every form, variant, client and fault named above. */
function generate(): Generated[] {
  const out: Generated[] = [];
  let n = 0;
  for (const op of manifest().operations.filter((o) => o.type === 'mutation')) {
    const definition = getOperationAST(parse(op.body), op.name);
    const [variable] = definition?.variableDefinitions ?? [];
    const inputs = INPUTS[print(variable.type).replace(/!$/, '')];
    if (!inputs) throw new Error(`no inputs for ${op.name}'s ${print(variable.type)}: add them to INPUTS`);
    const name = variable.variable.name.value;
    const forms: Array<[string, (vars: Record<string, unknown> | undefined) => unknown]> = [
      ['by id', (vars) => byPersistedQuery(op.id, vars)],
      ['by documentId', (vars) => ({ documentId: `sha256:${op.id}`, variables: vars })],
      ['as text', (vars) => ({ query: op.body, operationName: op.name, variables: vars })],
    ];
    for (const [form, body] of forms) {
      const valid = () => ({ [name]: inputs.valid(++n) });
      // `documentId` is another spelling of "by id": its answers, replay and client binding, not the whole matrix again.
      if (form === 'by documentId') {
        out.push({ name: `${op.name} ${form} with a key`, body: body(valid()), headers: withKey(), fault: 'ok', replay: true });
        out.push({ name: `${op.name} ${form} trusted-only client`, body: body(valid()), headers: TRUSTED_ONLY, fault: 'ok' });
        continue;
      }
      for (const fault of FAULTS) {
        out.push({ name: `${op.name} ${form} upstream ${fault}`, body: body(valid()), headers: {}, fault });
        out.push({ name: `${op.name} ${form} with a key, upstream ${fault}`, body: body(valid()), headers: withKey(), fault, replay: fault === 'ok' });
      }
      for (const [what, input] of inputs.refused) out.push({ name: `${op.name} ${form} ${what}`, body: body({ [name]: input(++n) }), headers: withKey(), fault: 'ok' });
      out.push({ name: `${op.name} ${form} no variables`, body: body(undefined), headers: {}, fault: 'ok' });
      out.push({ name: `${op.name} ${form} frugal client`, body: body(valid()), headers: FRUGAL, fault: 'ok' });
      out.push({ name: `${op.name} ${form} anonymous client`, body: body(valid()), headers: ANONYMOUS, fault: 'ok' });
      out.push({ name: `${op.name} ${form} trusted-only client`, body: body(valid()), headers: { ...TRUSTED_ONLY, ...withKey() }, fault: 'ok', replay: true });
      out.push({ name: `${op.name} ${form} trusted-only client, upstream status500`, body: body(valid()), headers: TRUSTED_ONLY, fault: 'status500' });
    }
  }
  // The docs' examples as they are written (their curl commands, read as curl sends them), under each fault and client.
  const examples = ['README.md', 'docs/clients.md'].flatMap((doc) =>
    fencedBlocks(readDoc(doc))
      .filter((b) => b.lang === 'sh' && /\bcurl\b/.test(b.text) && !b.text.includes('$('))
      .flatMap((b) => curlRequests(b.text, { BUSY_DATE: SAMPLE.laTerrazza.busyDate(createSampleState()) }).map((request) => ({ ...b, doc, request }))),
  );
  for (const block of examples) {
    if (block.request.method !== 'POST' || block.request.body === undefined) continue;
    const body = JSON.parse(block.request.body) as { query?: string; variables?: unknown };
    if (body.query === undefined || getOperationAST(parse(body.query))?.operation !== OperationTypeNode.MUTATION) continue;
    const venue = Object.fromEntries(Object.entries(block.request.headers).filter(([header]) => header.toLowerCase() !== 'content-type'));
    const name = `${block.doc} line ${block.line}`;
    for (const fault of FAULTS) {
      out.push({ name: `${name} upstream ${fault}`, body, headers: venue, fault });
      out.push({ name: `${name} with a key, upstream ${fault}`, body, headers: { ...venue, ...withKey() }, fault, replay: fault === 'ok' });
    }
    out.push({ name: `${name} frugal client`, body, headers: { ...venue, ...FRUGAL }, fault: 'ok' });
    out.push({ name: `${name} anonymous client`, body, headers: { ...venue, ...ANONYMOUS }, fault: 'ok' });
    out.push({ name: `${name} trusted-only client`, body, headers: { ...venue, ...TRUSTED_ONLY }, fault: 'ok' });
  }
  return out;
}

describe('mutations through both executors, over generated requests', () => {
  let compiled: Side;
  let apollo: Side;
  let dir: string | undefined;
  /** The UUIDs of the sample data: kept as they are in every comparison; any other is a new record's, masked by rank. */
  let known: Set<string>;
  let sent = 0;

  /** Both sandboxes' state, Maps as entry lists. */
  const stateOf = (side: Side): string => JSON.stringify(side.stack.sandbox.state, (_key, value: unknown) => (value instanceof Map ? [...value.entries()] : value));

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tablegraph-compiled-mutations-'));
    const env = {
      TRUSTED_DOCUMENTS: MANIFEST_PATH,
      CLIENTS_FILE: clientsFile(dir),
      JIT_MIN_USES: '1',
      // Deterministic upstream handling, so both gateways make the same calls: no retries, no breaker.
      UPSTREAM_RETRIES: '0',
      BREAKER_MINIMUM_CALLS: '1000000',
      UPSTREAM_HEADERS_TIMEOUT_MS: '150',
      UPSTREAM_BODY_TIMEOUT_MS: '150',
    };
    // One "now" for both sandboxes: the same sample, and a new record's timestamps are the same on both.
    const now = new Date();
    [compiled, apollo] = await Promise.all([startSide(env, now), startSide({ ...env, COMPILED_PATH: 'false' }, now)]);
    known = idsIn(stateOf(compiled));
  });
  afterAll(async () => {
    try {
      await Promise.all([compiled, apollo].filter(Boolean).flatMap((side) => [side.stack.close(), side.proxy.close()]));
    } finally {
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    }
  });

  async function exchange(side: Side, request: Generated, requestId: string): Promise<Answer> {
    const bodyText = JSON.stringify(request.body);
    const res = await fetch(`${side.stack.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'apollographql-client-name': 'web', ...SANDBOX_CREDENTIALS.laTerrazza, 'x-request-id': requestId, ...request.headers },
      body: bodyText,
    });
    const text = await res.text();
    return { status: res.status, headers: comparedHeaders(res.headers), text: maskRetryWait(maskNewIds(text, new Set([...known, ...idsIn(bodyText)]))), log: requestLog(side.stack, requestId) };
  }

  it('answers, logs and counts every generated mutation alike, and leaves both services in the same state', async () => {
    const requests = generate();
    const sources = new Set(requests.map((r) => r.name.split(' ')[0]));
    expect([...sources]).toEqual(expect.arrayContaining([...manifest().operations.filter((o) => o.type === 'mutation').map((o) => o.name), 'docs/clients.md']));
    const before = stateOf(compiled);
    const differences: string[] = [];
    const answers: Array<[string, Answer]> = [];
    const compare = async (name: string, request: Generated) => {
      const requestId = `mutation-${++sent}`;
      const [fast, slow] = await Promise.all([exchange(compiled, request, requestId), exchange(apollo, request, requestId)]);
      if (JSON.stringify(fast) !== JSON.stringify(slow)) differences.push(`${name}:\n  compiled ${JSON.stringify(fast).slice(0, 800)}\n  apollo   ${JSON.stringify(slow).slice(0, 800)}`);
      answers.push([name, fast]);
    };
    for (const request of requests.filter((r) => r.fault !== 'hang')) {
      for (const side of [compiled, apollo]) setFault(side, request.fault);
      await compare(request.name, request);
      if (request.replay) await compare(`${request.name}, replayed`, request);
    }
    // The timeouts all at once: each waits out the gateway's upstream timeout, and none reaches a service's state.
    for (const side of [compiled, apollo]) setFault(side, 'hang');
    await Promise.all(requests.filter((r) => r.fault === 'hang').map((r) => compare(r.name, r)));
    for (const side of [compiled, apollo]) setFault(side, 'ok');
    expect(differences).toEqual([]);

    // What the comparison covered: mutations served (and changing state), replayed, refused at each stage, timed out.
    const codes = new Set(answers.map(([, a]) => (JSON.parse(a.text) as { errors?: Array<{ extensions?: { code?: string } }> }).errors?.[0]?.extensions?.code ?? 'none'));
    expect([...codes].sort()).toEqual(
      expect.arrayContaining(['BAD_USER_INPUT', 'COST_ESTIMATED_TOO_EXPENSIVE', 'FEATURE_DISABLED', 'NOT_FOUND', 'PERSISTED_QUERY_NOT_IN_LIST', 'UPSTREAM_ERROR', 'UPSTREAM_TIMEOUT', 'none']),
    );
    expect(answers.filter(([name, a]) => name.endsWith(', replayed') && a.headers.some(([h, v]) => h === 'idempotent-replayed' && v === 'true')).length).toBeGreaterThan(10);
    const trustedOnly = answers.filter(([name]) => name.includes('trusted-only client') && !name.includes('upstream'));
    expect(trustedOnly.map(([name, a]) => [name.includes(' by id ') || name.includes(' by documentId '), a.status === 200 && a.text.includes('"data":{')]).filter(([byId, served]) => byId !== served)).toEqual([]);
    // Only Apollo executes a mutation.
    expect(answers.filter(([, a]) => a.log.execution !== undefined)).toEqual([]);

    expect(stateOf(compiled)).not.toBe(before);
    expect(maskNewIds(stateOf(compiled), known)).toBe(maskNewIds(stateOf(apollo), known));
    expect(await countedMetrics(compiled.stack)).toEqual(await countedMetrics(apollo.stack));
  }, 180_000);
});
