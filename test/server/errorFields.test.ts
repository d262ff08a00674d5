import { randomUUID } from 'node:crypto';
import { checkRecord } from '../support/fixtures';
import { LA_TERRAZZA, startStack, type Stack } from '../support/stack';
import { sendJson, startScriptedServer, type ScriptedHandler, type ScriptedServer } from '../support/upstreamServer';

/** A breaker and retry budget out of the way, so that one scripted refusal never shapes the next test. */
const QUIET_RESILIENCE: Record<string, string> = {
  BREAKER_CONSECUTIVE_FAILURES: '1000',
  BREAKER_WINDOW_SIZE: '1000',
  BREAKER_MINIMUM_CALLS: '1000',
  UPSTREAM_RETRY_BASE_DELAY_MS: '10',
};

const UPDATE_PAYMENT = `mutation($i: UpdatePaymentRequestInput!) { updatePaymentRequest(input: $i) { paymentRequest { id amount expirationTime } } }`;
const CREATE_OFF_DAY = `mutation($input: CreateOffDayInput!) { createOffDay(input: $input) { offDay { revenueCenterId date } } }`;

/** Both upstreams are scripted servers, so each test says exactly what the services answer. */
let reservation: ScriptedServer;
let pos: ScriptedServer;
let reservationReply: ScriptedHandler;
let posReply: ScriptedHandler;
let stack: Stack;

beforeAll(async () => {
  reservation = await startScriptedServer((req, res, body) => reservationReply(req, res, body));
  pos = await startScriptedServer((req, res, body) => posReply(req, res, body));
  stack = await startStack({ env: { ...QUIET_RESILIENCE, RESERVATION_BASE_URL: reservation.url, POS_BASE_URL: pos.url } });
});

afterAll(async () => {
  await stack.close();
  await reservation.close();
  await pos.close();
});

beforeEach(() => {
  reservation.requests.length = 0;
  pos.requests.length = 0;
  reservationReply = (_req, res) => sendJson(res, 500);
  posReply = (_req, res) => sendJson(res, 500);
});

describe('upstream refusals of the input', () => {
  it.each([
    [822, 'amount_is_invalid', 'input.amount'],
    [821, 'payment_expiry_duration_is_not_suitable', 'input.expirationTime'],
  ])('names the field of a 422 with code %i (%s) in extensions.field', async (code, reason, field) => {
    reservationReply = (_req, res) => sendJson(res, 422, { errors: [{ message: 'Refused', code }] });
    const res = await stack.gql(UPDATE_PAYMENT, { i: { id: randomUUID(), amount: '125.50', expirationTime: 48 } });
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors![0].extensions).toEqual({ code: 'BAD_USER_INPUT', field, upstream: { service: 'reservation', status: 422, code, reason } });
  });

  it('names no field for a refusal whose code is about no field', async () => {
    reservationReply = (_req, res) => sendJson(res, 422, { errors: [{ message: 'Payment link extension is not enabled', code: 832 }] });
    const res = await stack.gql(UPDATE_PAYMENT, { i: { id: randomUUID(), amount: 20 } });
    expect(res.body.errors![0].extensions).toMatchObject({ code: 'FEATURE_DISABLED' });
    expect(res.body.errors![0].extensions).not.toHaveProperty('field');
  });
});

describe('variable coercion errors', () => {
  it.each([
    ['a wrong-typed input field', { i: { id: randomUUID(), amount: '125.50', expirationTime: 'abc' } }, 'input.expirationTime'],
    ['a missing required input field', { i: { amount: '125.50' } }, 'input.id'],
    ['an input field the type does not define', { i: { id: randomUUID(), amout: '125.50' } }, 'input.amout'],
    ['a null input', { i: null }, 'input'],
    ['no input at all', {}, 'input'],
  ])('names the input path of %s in extensions.field, before any upstream call', async (_what, variables, field) => {
    const res = await stack.gql(UPDATE_PAYMENT, variables);
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors![0].extensions).toEqual({ code: 'BAD_USER_INPUT', field });
    expect(reservation.requests).toHaveLength(0);
  });

  it('names the argument an Int variable feeds when given a fraction', async () => {
    const res = await stack.gql(`query($p: Int) { employees(page: $p) { nodes { id } } }`, { p: 1.5 });
    expect(res.body.errors![0].extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'page' });
    expect(pos.requests).toHaveLength(0);
  });

  it('names the path inside a variable that feeds a nested input field', async () => {
    const res = await stack.gql(`mutation($t: Int) { updatePaymentRequest(input: { id: "${randomUUID()}", expirationTime: $t }) { paymentRequest { id } } }`, {
      t: 'soon',
    });
    expect(res.body.errors![0].extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'input.expirationTime' });
  });
});

describe('credentials in upstream messages', () => {
  it.each(Object.entries(LA_TERRAZZA).filter(([name]) => name !== 'Pos-Access-Token'))(
    'never shows the %s the upstream quotes back, keeping its code',
    async (_name, value) => {
      reservationReply = (_req, res) => sendJson(res, 401, { errors: [{ message: `Invalid token ${value}`, code: 960 }] });
      const res = await stack.gql(UPDATE_PAYMENT, { i: { id: randomUUID(), amount: 20 } });
      expect(res.body.errors![0].extensions).toMatchObject({ code: 'UNAUTHENTICATED', upstream: { service: 'reservation', status: 401, code: 960 } });
      expect(JSON.stringify(res.body)).not.toContain(value);
    },
  );

  it('never shows the Pos-Access-Token the POS service quotes back', async () => {
    const token = LA_TERRAZZA['Pos-Access-Token'];
    posReply = (_req, res) => sendJson(res, 401, { errors: [{ message: `Invalid token ${token}` }] });
    const res = await stack.gql(`query($id: ID!) { check(id: $id) { id } }`, { id: randomUUID() });
    expect(res.body.errors![0].extensions).toMatchObject({ code: 'UNAUTHENTICATED', upstream: { service: 'pos', status: 401 } });
    expect(JSON.stringify(res.body)).not.toContain(token);
  });
});

describe('money the POS service sends', () => {
  it('refuses an amount with more decimals than a Decimal shows as UPSTREAM_BAD_RESPONSE naming the field', async () => {
    const check = checkRecord();
    posReply = (_req, res) => sendJson(res, 200, { ...check, summary: { ...check.summary, total_amount: '0.1234567' } });
    const res = await stack.gql(`query($id: ID!) { check(id: $id) { id summary { totalAmount } } }`, { id: check.id });
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors![0].extensions).toMatchObject({ code: 'UPSTREAM_BAD_RESPONSE', upstream: { service: 'pos', status: 200 } });
    expect(res.body.errors![0].message).toContain('summary.total_amount');
  });
});

describe('answers without a body', () => {
  it('takes a 200 with a non-JSON body as the success of updatePaymentRequest', async () => {
    reservationReply = (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('OK');
    const id = randomUUID();
    const res = await stack.gql(UPDATE_PAYMENT, { i: { id, amount: '125.50', expirationTime: 48 } });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data).toEqual({ updatePaymentRequest: { paymentRequest: { id, amount: '125.50', expirationTime: 48 } } });
  });

  it('takes a 200 with an HTML body as the success of createOffDay', async () => {
    reservationReply = (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Saved</body></html>');
    const revenueCenterId = randomUUID();
    const res = await stack.gql(CREATE_OFF_DAY, { input: { revenueCenterId, date: '2099-12-31T00:00' } });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data).toEqual({ createOffDay: { offDay: { revenueCenterId, date: '2099-12-31T00:00' } } });
  });
});
