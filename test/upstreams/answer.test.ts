import { z } from 'zod';
import { UpstreamError } from '../../src/errors/UpstreamError';
import { checkStatus, readBody } from '../../src/upstreams/answer';
import { NOT_JSON } from '../../src/upstreams/record';
import type { Answer } from '../../src/upstreams/transport';
import { thrownBy } from '../support/failures';

const Ok = z.object({ ok: z.boolean() });

function answer(status: number, text = '', headers: Answer['headers'] = {}): Answer {
  return { status, headers, text, bytes: Buffer.byteLength(text) };
}

describe('checkStatus', () => {
  it.each([200, 201, 202, 204, 299])('lets the success %i through', (status) => {
    expect(() => checkStatus('pos', answer(status), [])).not.toThrow();
  });

  it('refuses a redirect as a bad response, since the gateway never follows one', () => {
    expect(thrownBy(UpstreamError, () => checkStatus('pos', answer(302), []))).toMatchObject({ failure: 'bad_response', status: 302 });
  });

  it('reads the error code, the safe message and Retry-After of an error answer', () => {
    const err = thrownBy(UpstreamError, () => checkStatus('reservation', answer(503, '{"errors":[{"message":"Busy","code":"7"}]}', { 'retry-after': '2' }), []));
    expect(err).toMatchObject({ failure: 'status', status: 503, upstreamCode: 7, upstreamMessage: 'Busy', retryAfterMs: 2000 });
  });

  it('drops a message quoting a secret of the call, by its value or its credential part, whatever the case', () => {
    const secrets = ['Bearer api-secret-key', '4821'];
    for (const message of ['bad key API-SECRET-KEY', 'pin 4821 locked']) {
      const err = thrownBy(UpstreamError, () => checkStatus('reservation', answer(401, JSON.stringify({ errors: [{ message, code: 960 }] })), secrets));
      expect(err).toMatchObject({ upstreamCode: 960, upstreamMessage: undefined });
    }
  });

  it('looks for no secret shorter than a PIN, which any text would seem to quote', () => {
    const err = thrownBy(UpstreamError, () => checkStatus('reservation', answer(422, '{"errors":[{"message":"Amount is invalid","code":822}]}'), ['a', 'is']));
    expect(err.upstreamMessage).toBe('Amount is invalid');
  });
});

describe('readBody', () => {
  it('checks a body against its zod schema, naming the field that breaks it', () => {
    expect(readBody('pos', { response: Ok }, answer(200, '{"ok":true}'))).toEqual({ ok: true });
    expect(thrownBy(UpstreamError, () => readBody('pos', { response: Ok }, answer(200, '{"ok":"yes"}'))).detail).toMatch(/^field ok: /);
  });

  it('refuses an empty body unless the operation says what it becomes', () => {
    expect(thrownBy(UpstreamError, () => readBody('pos', { response: Ok }, answer(200, '  ')))).toMatchObject({ failure: 'bad_response', detail: 'the body is empty' });
    expect(readBody('pos', { response: Ok, onEmpty: () => null }, answer(204))).toBeNull();
  });

  it('hands a record reader NOT_JSON for a body that is not JSON, so it can count the deviation', () => {
    const seen: unknown[] = [];
    readBody('pos', { response: (body) => seen.push(body) }, answer(200, '<html>'));
    expect(seen).toEqual([NOT_JSON]);
    expect(thrownBy(UpstreamError, () => readBody('pos', { response: Ok }, answer(200, '<html>'))).detail).toBe('the body is not JSON');
  });

  it('parses one answer once for every request that reads it (the joiners of one read share the parse)', () => {
    const shared = answer(200, '{"id":"a","items":[{"id":"b"}]}');
    const seen: unknown[] = [];
    const reading = { response: (body: unknown) => seen.push(body) };
    readBody('pos', reading, shared);
    readBody('pos', reading, shared);
    expect(seen).toHaveLength(2);
    expect(seen[1]).toBe(seen[0]);
    // Another answer with the same text is another parse.
    readBody('pos', reading, answer(200, shared.text));
    expect(seen[2]).not.toBe(seen[0]);
    expect(seen[2]).toEqual(seen[0]);
  });
});
