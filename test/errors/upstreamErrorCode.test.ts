import { UpstreamError, type UpstreamFailure } from '../../src/errors/UpstreamError';
import { ErrorCode } from '../../src/errors/codes';
import { documentedCode, namedAfterInput, safeUpstreamMessage, upstreamErrorCode, upstreamErrorField, upstreamErrorMessage, upstreamExtension } from '../../src/errors/upstreamErrorCode';

describe('upstreamErrorCode', () => {
  it.each([
    [400, ErrorCode.BAD_USER_INPUT],
    [401, ErrorCode.UNAUTHENTICATED],
    [403, ErrorCode.FORBIDDEN],
    [404, ErrorCode.NOT_FOUND],
    [409, ErrorCode.UPSTREAM_ERROR],
    [422, ErrorCode.BAD_USER_INPUT],
    [429, ErrorCode.UPSTREAM_ERROR],
    [500, ErrorCode.UPSTREAM_ERROR],
    [502, ErrorCode.UPSTREAM_ERROR],
    [503, ErrorCode.UPSTREAM_ERROR],
  ])('maps status %i without an upstream code to %s', (status, code) => {
    expect(upstreamErrorCode(new UpstreamError('pos', 'status', { status }))).toBe(code);
  });

  it.each([
    [401, 960, ErrorCode.UNAUTHENTICATED],
    [400, 960, ErrorCode.UNAUTHENTICATED],
    [422, 821, ErrorCode.BAD_USER_INPUT],
    [422, 822, ErrorCode.BAD_USER_INPUT],
    [400, 822, ErrorCode.BAD_USER_INPUT],
    [422, 832, ErrorCode.FEATURE_DISABLED],
    [400, 832, ErrorCode.FEATURE_DISABLED],
  ])('maps status %i with upstream code %i to %s', (status, upstreamCode, code) => {
    expect(upstreamErrorCode(new UpstreamError('reservation', 'status', { status, upstreamCode }))).toBe(code);
  });

  it.each([
    [422, 832, ErrorCode.BAD_USER_INPUT],
    [400, 960, ErrorCode.BAD_USER_INPUT],
    [500, 960, ErrorCode.UPSTREAM_ERROR],
    [401, 960, ErrorCode.UNAUTHENTICATED],
  ])('maps a POS status %i with code %i by its status alone, since the codes are the reservation service\'s, to %s', (status, upstreamCode, code) => {
    expect(upstreamErrorCode(new UpstreamError('pos', 'status', { status, upstreamCode }))).toBe(code);
  });

  it('falls back to the status for an unknown upstream code', () => {
    expect(upstreamErrorCode(new UpstreamError('reservation', 'status', { status: 404, upstreamCode: 1234 }))).toBe(ErrorCode.NOT_FOUND);
  });

  it.each<[UpstreamFailure, number | undefined, ErrorCode]>([
    ['timeout', undefined, ErrorCode.UPSTREAM_TIMEOUT],
    ['unavailable', undefined, ErrorCode.UPSTREAM_UNAVAILABLE],
    ['bad_response', 200, ErrorCode.UPSTREAM_BAD_RESPONSE],
    ['bad_response', 302, ErrorCode.UPSTREAM_BAD_RESPONSE],
    ['bad_response', undefined, ErrorCode.UPSTREAM_BAD_RESPONSE],
  ])('maps a %s failure (status %p) to %s', (failure, status, code) => {
    expect(upstreamErrorCode(new UpstreamError('pos', failure, { status }))).toBe(code);
  });
});

describe('upstreamExtension', () => {
  it.each([
    [960, 401, 'invalid_token'],
    [821, 422, 'payment_expiry_duration_is_not_suitable'],
    [822, 422, 'amount_is_invalid'],
    [832, 422, 'feature_disabled_error'],
  ])('carries service, status, code %i and reason of a reservation answer', (upstreamCode, status, reason) => {
    const err = new UpstreamError('reservation', 'status', { status, upstreamCode });
    expect(upstreamExtension(err)).toEqual({ service: 'reservation', status, code: upstreamCode, reason });
  });

  it('carries service and status alone when the answer had no code', () => {
    expect(upstreamExtension(new UpstreamError('pos', 'status', { status: 503 }))).toEqual({ service: 'pos', status: 503 });
  });

  it('gives no reservation reason to a POS code', () => {
    expect(upstreamExtension(new UpstreamError('pos', 'status', { status: 422, upstreamCode: 822 }))).toEqual({ service: 'pos', status: 422, code: 822 });
  });

  it('gives no reason to an undocumented code', () => {
    expect(upstreamExtension(new UpstreamError('reservation', 'status', { status: 422, upstreamCode: 999 }))).toEqual({
      service: 'reservation',
      status: 422,
      code: 999,
    });
  });

  it('covers a bad response, which is still an answer', () => {
    expect(upstreamExtension(new UpstreamError('pos', 'bad_response', { status: 200, detail: 'the body is not JSON' }))).toEqual({ service: 'pos', status: 200 });
  });

  it.each<UpstreamFailure>(['timeout', 'unavailable'])('is undefined for a %s, which had no answer', (failure) => {
    expect(upstreamExtension(new UpstreamError('reservation', failure))).toBeUndefined();
  });
});

describe('upstreamErrorField', () => {
  const PAYMENT_FIELDS = new Map([['amount', 'input.amount'], ['expiration_time', 'input.expirationTime']]);

  it.each([
    [422, 822, 'input.amount'],
    [400, 822, 'input.amount'],
    [422, 821, 'input.expirationTime'],
  ])('names the input field of a reservation %i with code %i: %s', (status, upstreamCode, field) => {
    expect(upstreamErrorField(namedAfterInput(new UpstreamError('reservation', 'status', { status, upstreamCode }), PAYMENT_FIELDS))).toBe(field);
  });

  it.each([
    ['a code that names no field', new UpstreamError('reservation', 'status', { status: 422, upstreamCode: 832 })],
    ['an undocumented code', new UpstreamError('reservation', 'status', { status: 422, upstreamCode: 801 })],
    ['no code', new UpstreamError('reservation', 'status', { status: 422 })],
    ['a code on a 5xx, which is no input refusal', new UpstreamError('reservation', 'status', { status: 500, upstreamCode: 822 })],
    ["a POS answer, whose codes are not the reservation service's", new UpstreamError('pos', 'status', { status: 422, upstreamCode: 822 })],
  ])('names nothing for %s', (_what, err) => {
    expect(upstreamErrorField(namedAfterInput(err, PAYMENT_FIELDS))).toBeUndefined();
  });
});

describe('upstreamErrorMessage', () => {
  it("quotes the service's own safe message", () => {
    const err = new UpstreamError('pos', 'status', { status: 404, upstreamMessage: 'record not found' });
    expect(upstreamErrorMessage(err)).toBe('The POS service refused the request (HTTP 404): record not found.');
  });

  it('names neither the class nor the cause of a transport failure', () => {
    const cause = Object.assign(new Error('connect ECONNREFUSED 10.1.2.3:8080'), { code: 'ECONNREFUSED' });
    const message = upstreamErrorMessage(new UpstreamError('reservation', 'unavailable', { detail: 'connection failed', cause }));
    expect(message).toBe('The reservation service is unavailable (connection failed).');
  });
});

describe('safeUpstreamMessage', () => {
  it('keeps short plain text, trimmed', () => {
    expect(safeUpstreamMessage('  Amount is invalid ')).toBe('Amount is invalid');
  });

  it('keeps a message of exactly 200 characters', () => {
    expect(safeUpstreamMessage('a'.repeat(200))).toBe('a'.repeat(200));
  });

  it.each([
    ['a URL', 'see https://internal.example/debug for details'],
    ['a scheme-only address', 'redis://cache:6379 is down'],
    ['an IP address', 'connect to 10.0.0.12 refused'],
    ['a newline', 'first line\nsecond line'],
    ['a carriage return', 'first line\r second'],
    ['markup', '<b>error</b>'],
    ['a JSON fragment', 'bad {"token":"x"}'],
    ['more than 200 characters', 'a'.repeat(201)],
    ['only whitespace', '   '],
    ['nothing', ''],
  ])('drops a message with %s', (_what, message) => {
    expect(safeUpstreamMessage(message)).toBeUndefined();
  });

  it.each([undefined, null, 42, { message: 'x' }])('drops a non-string %p', (message) => {
    expect(safeUpstreamMessage(message)).toBeUndefined();
  });
});

describe('documentedCode', () => {
  it("reads a code in its own service's table", () => {
    expect(documentedCode('reservation', 832)).toEqual({ reason: 'feature_disabled_error', code: ErrorCode.FEATURE_DISABLED });
    expect(documentedCode('reservation', 822)?.field).toBe('amount');
  });

  it("gives nothing for another service's code, an undocumented code, or none", () => {
    expect(documentedCode('pos', 832)).toBeUndefined();
    expect(documentedCode('reservation', 999)).toBeUndefined();
    expect(documentedCode('reservation', undefined)).toBeUndefined();
  });
});
