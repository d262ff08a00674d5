import { randomUUID } from 'node:crypto';
import { leakedSecrets } from '../support/leaks';
import { logLine, startStack, type Stack } from '../support/stack';
import { startScriptedServer, type RecordedRequest, type ScriptedServer } from '../support/upstreamServer';

/** The four API-key headers of the off-day and calendar operations, spelled as proxies let them through. */
const HYPHENATED = {
  Authorization: 'Bearer spelling-api-key-5c1e',
  'Employee-Token': 'spelling-employee-token-9a7d',
  'Store-Pin-Code': '6083',
  'Slug-Name': 'spelling-venue-slug',
};
/** The same credentials under the names the reservation service's document gives them. */
const DOCUMENTED = {
  Authorization: HYPHENATED.Authorization,
  EMPLOYEE_TOKEN: HYPHENATED['Employee-Token'],
  STORE_PIN_CODE: HYPHENATED['Store-Pin-Code'],
  SLUG_NAME: HYPHENATED['Slug-Name'],
};
const CREATE_OFF_DAY = `mutation($input: CreateOffDayInput!) { createOffDay(input: $input) { offDay { revenueCenterId date } } }`;

/** The header names a request carried, as the gateway spelled them on the wire. */
const namesOf = (request: RecordedRequest): string[] => request.rawHeaders.filter((_, i) => i % 2 === 0);

describe('credential header spellings (CONTRACT.md, "Credentials")', () => {
  let reservation: ScriptedServer;
  let pos: ScriptedServer;
  let stack: Stack;
  const upstreamCalls = () => reservation.requests.length + pos.requests.length;

  beforeAll(async () => {
    // An off-day is accepted without a body; the POS is never meant to be called here.
    reservation = await startScriptedServer((_req, res) => res.writeHead(201).end());
    pos = await startScriptedServer((_req, res) => res.writeHead(500).end());
    stack = await startStack({ env: { RESERVATION_BASE_URL: reservation.url, POS_BASE_URL: pos.url } });
  });
  afterAll(async () => {
    await stack.close();
    await Promise.all([reservation.close(), pos.close()]);
  });
  beforeEach(() => {
    reservation.requests.length = 0;
    pos.requests.length = 0;
  });

  const createOffDay = (headers: Record<string, string>) =>
    stack.gql(CREATE_OFF_DAY, { input: { revenueCenterId: randomUUID(), date: '2099-12-31T00:00' } }, headers);

  it('forwards Employee-Token, Store-Pin-Code and Slug-Name to the reservation service as EMPLOYEE_TOKEN, STORE_PIN_CODE and SLUG_NAME', async () => {
    const res = await createOffDay(HYPHENATED);
    expect(res.body.errors).toBeUndefined();
    expect(reservation.requests).toHaveLength(1);
    const [sent] = reservation.requests;
    expect(namesOf(sent)).toEqual(expect.arrayContaining(['EMPLOYEE_TOKEN', 'STORE_PIN_CODE', 'SLUG_NAME']));
    expect(namesOf(sent).filter((n) => /^(employee-token|store-pin-code|slug-name)$/i.test(n))).toEqual([]);
    expect(sent.headers).toMatchObject({ employee_token: DOCUMENTED.EMPLOYEE_TOKEN, store_pin_code: DOCUMENTED.STORE_PIN_CODE, slug_name: DOCUMENTED.SLUG_NAME });
  });

  it('still takes the underscore names, and a header sent under both spellings with the same value', async () => {
    expect((await createOffDay(DOCUMENTED)).body.errors).toBeUndefined();
    expect((await createOffDay({ ...DOCUMENTED, ...HYPHENATED })).body.errors).toBeUndefined();
    expect(reservation.requests).toHaveLength(2);
    for (const sent of reservation.requests) expect(sent.headers.store_pin_code).toBe(DOCUMENTED.STORE_PIN_CODE);
  });

  it('refuses a header sent under both spellings with different values: HTTP 400, BAD_USER_INPUT naming it, no upstream call', async () => {
    const requestId = randomUUID();
    const res = await fetch(`${stack.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': requestId, ...DOCUMENTED, ...HYPHENATED, 'Slug-Name': 'another-venue-slug' },
      body: JSON.stringify({ query: CREATE_OFF_DAY, variables: { input: { revenueCenterId: randomUUID(), date: '2099-12-31T00:00' } } }),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { errors: Array<{ message: string; extensions: { code: string } }> };
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(body.errors[0].message).toContain('SLUG_NAME and Slug-Name');
    expect(body.errors[0].message).not.toMatch(/EMPLOYEE_TOKEN|STORE_PIN_CODE/);
    expect(body.errors[0].message).not.toContain('venue-slug');
    expect(upstreamCalls()).toBe(0);
    expect(logLine(stack, requestId)).toMatchObject({ httpStatus: 400, errorCodes: ['BAD_USER_INPUT'] });
  });

  it('refuses the conflict for a query too, before the POS is asked', async () => {
    const res = await stack.gql(`{ employees(perPage: 1) { nodes { id } } }`, undefined, { 'Pos-Access-Token': 'spelling-pos-token-77e2', EMPLOYEE_TOKEN: 'a-token-1', 'employee-token': 'a-token-2' });
    expect(res.status).toBe(400);
    expect(res.body.errors?.[0].extensions).toEqual({ code: 'BAD_USER_INPUT' });
    expect(res.body.errors?.[0].message).toContain('EMPLOYEE_TOKEN and Employee-Token');
    expect(upstreamCalls()).toBe(0);
  });

  it('keeps one idempotency scope for both spellings: the repeat under the other spelling is a replay', async () => {
    const key = `spelling-${randomUUID()}`;
    const input = { revenueCenterId: randomUUID(), date: '2099-12-30T00:00' };
    const send = (headers: Record<string, string>) =>
      fetch(`${stack.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': key, ...headers },
        body: JSON.stringify({ query: CREATE_OFF_DAY, variables: { input } }),
      });
    const first = await send(DOCUMENTED);
    const again = await send(HYPHENATED);
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.text()).toBe(await first.text());
    expect(reservation.requests).toHaveLength(1);
  });

  it('writes none of these credentials into the logs', () => {
    const secrets = [...Object.values(HYPHENATED), 'another-venue-slug', 'spelling-pos-token-77e2'];
    expect(stack.logs.length).toBeGreaterThan(0);
    expect(leakedSecrets(stack.logs.join('\n'), secrets)).toEqual([]);
  });
});
