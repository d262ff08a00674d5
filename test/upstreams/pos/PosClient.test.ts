import { randomUUID } from 'node:crypto';
import { ServiceCredentials } from '../../../src/credentials';
import { InputError, MissingCredentialError } from '../../../src/errors/InputError';
import { UpstreamError } from '../../../src/errors/UpstreamError';
import { PosClient } from '../../../src/upstreams/pos/PosClient';
import { CLIENT_HEADERS, TRANSPORT_HEADERS, checkRecord, employeeRecord, headerLookup, pageMeta } from '../../support/fixtures';
import { INJECTIONS, GATEWAY_HEADERS, catchError, clientHarness } from '../../support/clientHarness';
import { sendJson } from '../../support/upstreamServer';

const h = clientHarness('pos');

function client(headers: Readonly<Record<string, string>> = CLIENT_HEADERS): PosClient {
  return new PosClient(h.http, ServiceCredentials.from('pos', headerLookup(headers)), h.scope());
}

function withoutPosToken(): Record<string, string> {
  const { 'pos-access-token': _token, ...rest } = CLIENT_HEADERS;
  return rest;
}

describe('PosClient', () => {
  describe('getCheck', () => {
    it('gets /checks/{id} and resolves the check', async () => {
      const check = checkRecord();
      h.reply = (_req, res) => sendJson(res, 200, check);
      const read = await client().getCheck(check.id);
      expect([read.read('id'), read.read('alias'), read.read('summary').read('total_amount')]).toEqual([check.id, check.alias, check.summary.total_amount]);
      const seen = h.onlyRequest();
      expect(seen.method).toBe('GET');
      expect(seen.url).toBe(`/checks/${check.id}`);
      expect(seen.body).toBe('');
    });

    it('records the route template, never the raw id', async () => {
      const check = checkRecord();
      h.reply = (_req, res) => sendJson(res, 200, check);
      await client().getCheck(check.id);
      expect(h.records).toEqual([expect.objectContaining({ service: 'pos', method: 'GET', route: '/checks/:id', status: 200 })]);
    });

    it('turns a 404 into a status failure', async () => {
      h.reply = (_req, res) => sendJson(res, 404, { errors: [{ message: 'record not found' }] });
      const err = await client().getCheck(randomUUID()).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UpstreamError);
      expect(err).toMatchObject({ service: 'pos', failure: 'status', status: 404, upstreamMessage: 'record not found' });
    });

    it('refuses an empty answer as a bad response', async () => {
      h.reply = (_req, res) => sendJson(res, 200);
      await expect(client().getCheck(randomUUID())).rejects.toMatchObject({ service: 'pos', failure: 'bad_response' });
    });

    it("drops an upstream message that quotes the request's Pos-Access-Token, keeping the code", async () => {
      h.reply = (_req, res) => sendJson(res, 401, { errors: [{ message: `Invalid token ${CLIENT_HEADERS['pos-access-token']}`, code: 960 }] });
      const err = (await client().getCheck(randomUUID()).catch((e: unknown) => e)) as UpstreamError;
      expect(err).toMatchObject({ service: 'pos', failure: 'status', status: 401, upstreamCode: 960 });
      expect(err.upstreamMessage).toBeUndefined();
      expect(JSON.stringify({ ...err, message: err.message })).not.toContain(CLIENT_HEADERS['pos-access-token']);
    });

    it.each(['0.1234567', '1234567890123456.00'])('fails the money amount %s, which the Decimal scalar cannot show, at its field alone', async (amount) => {
      const check = checkRecord();
      h.reply = (_req, res) => sendJson(res, 200, { ...check, summary: { ...check.summary, total_amount: amount } });
      const summary = (await client().getCheck(check.id)).read('summary');
      const err = catchError(() => summary.read('total_amount'));
      expect(err).toBeInstanceOf(UpstreamError);
      expect(err).toMatchObject({ failure: 'bad_response', status: 200, deviation: { field: 'summary.total_amount', received: 'invalid_decimal' } });
      expect(err.detail).toMatch(/^field summary\.total_amount: /);
      expect(summary.read('paid_amount')).toBe(check.summary.paid_amount);
    });

    it('fails an item with a malformed id in its slot of the list, naming the field', async () => {
      const check = checkRecord();
      h.reply = (_req, res) => sendJson(res, 200, { ...check, check_items: [{ ...check.check_items[0], id: 42 }, check.check_items[0]] });
      const [bad, good] = (await client().getCheck(check.id)).read('check_items');
      expect(bad).toBeInstanceOf(UpstreamError);
      expect((bad as UpstreamError).detail).toMatch(/^field check_items\.id: expected a UUID, received number$/);
      expect(good).not.toBeInstanceOf(UpstreamError);
    });

    it.each([
      ['an array', [], '(body)', 'array'],
      ['an object without an id', { alias: 'T1' }, 'id', 'missing'],
      ['an object with an id that is no UUID', { id: 'not-a-uuid' }, 'id', 'invalid_uuid'],
    ])('refuses a body that is %s whole, as a bad response', async (_what, body, field, received) => {
      h.reply = (_req, res) => sendJson(res, 200, body);
      await expect(client().getCheck(randomUUID())).rejects.toMatchObject({ service: 'pos', failure: 'bad_response', status: 200, deviation: { field, received } });
    });

    it.each(INJECTIONS)('refuses the id %j with an InputError and sends nothing', async (id) => {
      const err = await client().getCheck(id).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InputError);
      expect((err as InputError).extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'id' });
      expect(h.server.requests).toHaveLength(0);
    });

    it('refuses without the Pos-Access-Token and sends nothing', async () => {
      const err = await client(withoutPosToken()).getCheck(randomUUID()).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(MissingCredentialError);
      expect((err as MissingCredentialError).extensions).toEqual({ code: 'UNAUTHENTICATED', headers: ['pos-access-token'] });
      expect(h.server.requests).toHaveLength(0);
    });

    it('refuses a blank Pos-Access-Token and sends nothing', async () => {
      await expect(client({ ...CLIENT_HEADERS, 'pos-access-token': '' }).getCheck(randomUUID())).rejects.toBeInstanceOf(MissingCredentialError);
      expect(h.server.requests).toHaveLength(0);
    });
  });

  describe('listEmployees', () => {
    it('gets /employees with page and per_page and resolves the page', async () => {
      const list = { meta: pageMeta({ current_page: 3, per_page_count: 2, total_count: 6, total_page: 3 }), employees: [employeeRecord(), employeeRecord()] };
      h.reply = (_req, res) => sendJson(res, 200, list);
      const page = await client().listEmployees({ page: 3, perPage: 2 });
      expect(page.read('meta').read('current_page')).toBe(3);
      expect(page.read('employees').map((e) => (e instanceof UpstreamError ? e : e.read('id')))).toEqual(list.employees.map((e) => e.id));
      const seen = h.onlyRequest();
      expect(seen.method).toBe('GET');
      expect(seen.url).toBe('/employees?page=3&per_page=2');
    });

    it('refuses an employee without an id in its slot of the page, as a bad response', async () => {
      const { id: _id, ...noId } = employeeRecord();
      h.reply = (_req, res) => sendJson(res, 200, { meta: pageMeta(), employees: [noId] });
      const [err] = (await client().listEmployees({ page: 1, perPage: 50 })).read('employees');
      expect(err).toMatchObject({ failure: 'bad_response', deviation: { field: 'employees.id', received: 'missing' } });
      expect((err as UpstreamError).detail).toMatch(/^field employees\.id: /);
    });

    it('refuses without the Pos-Access-Token and sends nothing', async () => {
      await expect(client(withoutPosToken()).listEmployees({ page: 1, perPage: 50 })).rejects.toBeInstanceOf(MissingCredentialError);
      expect(h.server.requests).toHaveLength(0);
    });
  });

  describe('headers', () => {
    const operations: Array<[string, (c: PosClient) => Promise<unknown>]> = [
      ['getCheck', (c) => c.getCheck(randomUUID())],
      ['listEmployees', (c) => c.listEmployees({ page: 1, perPage: 50 })],
    ];

    it.each(operations)('%s sends only the POS credential and the gateway headers', async (_name, run) => {
      h.reply = (req, res) => sendJson(res, 200, req.url?.startsWith('/employees') ? { meta: pageMeta(), employees: [] } : checkRecord());
      await run(client());
      const seen = h.onlyRequest();
      const forwarded = Object.keys(seen.headers).filter((name) => !TRANSPORT_HEADERS.has(name));
      expect(forwarded.sort()).toEqual(['pos-access-token', ...Object.keys(GATEWAY_HEADERS)].sort());
      expect(seen.headers['pos-access-token']).toBe(CLIENT_HEADERS['pos-access-token']);
      expect(seen.headers['x-request-id']).toBe(GATEWAY_HEADERS['x-request-id']);
      expect(seen.headers.host).toBe(`127.0.0.1:${h.server.port}`);
      expect(seen.rawHeaders.filter((_v, i) => i % 2 === 0)).toContain('Pos-Access-Token');
      // Host is the upstream's own address (its port could contain any digits), checked above.
      const everything = seen.rawHeaders.filter((_v, i, all) => all[i - (i % 2)].toLowerCase() !== 'host').join('\n');
      for (const name of ['reservation-access-token', 'authorization', 'employee_token', 'store_pin_code', 'slug_name', 'cookie']) {
        expect(everything).not.toContain(CLIENT_HEADERS[name]);
      }
      for (const junk of ['203.0.113.9', 'evil.example', 'Mozilla']) expect(everything).not.toContain(junk);
    });
  });
});
