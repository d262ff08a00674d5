import { ALL_CREDENTIAL_HEADERS, CREDENTIAL_HEADERS, ServiceCredentials, callerHash, credentialSpellingConflict } from '../src/credentials';
import { CLIENT_HEADERS, headerLookup } from './support/fixtures';

describe('ServiceCredentials', () => {
  it('asks for each header of its service by lower-cased name, then for its other spelling when it has one', () => {
    const asked: string[] = [];
    ServiceCredentials.from('reservation', (name) => {
      asked.push(name);
      return undefined;
    });
    expect(asked).toEqual(['reservation-access-token', 'authorization', 'employee_token', 'employee-token', 'store_pin_code', 'store-pin-code', 'slug_name', 'slug-name']);
  });

  it('takes Employee-Token, Store-Pin-Code and Slug-Name and sends them under the documented names', () => {
    const get = headerLookup({ 'employee-token': 'emp', 'store-pin-code': '1234', 'slug-name': 'venue', authorization: 'Bearer k' });
    expect(ServiceCredentials.from('reservation', get).headers('reservation')).toEqual({ Authorization: 'Bearer k', EMPLOYEE_TOKEN: 'emp', STORE_PIN_CODE: '1234', SLUG_NAME: 'venue' });
    expect(ServiceCredentials.from('reservation', get).missing(['employee_token', 'store_pin_code', 'slug_name'])).toEqual([]);
    expect(ServiceCredentials.from('pos', get).headers('pos')).toEqual({});
  });

  it('falls back to the other spelling when the documented one is blank', () => {
    const get = headerLookup({ employee_token: '', 'employee-token': 'emp' });
    expect(ServiceCredentials.from('reservation', get).headers('reservation')).toEqual({ EMPLOYEE_TOKEN: 'emp' });
  });

  it('picks headers whatever case the client sent them in', () => {
    const sent = { 'RESERVATION-ACCESS-TOKEN': 'tok', Employee_Token: 'emp', 'pos-ACCESS-token': 'pos' };
    const lower = new Map(Object.entries(sent).map(([k, v]) => [k.toLowerCase(), v]));
    const get = (name: string) => lower.get(name);
    expect(ServiceCredentials.from('reservation', get).headers('reservation')).toEqual({ 'Reservation-Access-Token': 'tok', EMPLOYEE_TOKEN: 'emp' });
    expect(ServiceCredentials.from('pos', get).headers('pos')).toEqual({ 'Pos-Access-Token': 'pos' });
  });

  it('spells the headers as the service documents do', () => {
    expect(ServiceCredentials.from('reservation', headerLookup(CLIENT_HEADERS)).headers('reservation')).toEqual({
      'Reservation-Access-Token': CLIENT_HEADERS['reservation-access-token'],
      Authorization: CLIENT_HEADERS.authorization,
      EMPLOYEE_TOKEN: CLIENT_HEADERS.employee_token,
      STORE_PIN_CODE: CLIENT_HEADERS.store_pin_code,
      SLUG_NAME: CLIENT_HEADERS.slug_name,
    });
    expect(ServiceCredentials.from('pos', headerLookup(CLIENT_HEADERS)).headers('pos')).toEqual({ 'Pos-Access-Token': CLIENT_HEADERS['pos-access-token'] });
  });

  it("never holds another service's headers", () => {
    const pos = ServiceCredentials.from('pos', headerLookup(CLIENT_HEADERS));
    const reservation = ServiceCredentials.from('reservation', headerLookup(CLIENT_HEADERS));
    expect(pos.headers('reservation')).toEqual({});
    expect(reservation.headers('pos')).toEqual({});
    expect(pos.secrets()).toEqual([CLIENT_HEADERS['pos-access-token']]);
    expect(reservation.secrets()).not.toContain(CLIENT_HEADERS['pos-access-token']);
    expect(reservation.secrets()).not.toContain(CLIENT_HEADERS.cookie);
  });

  it('lists the required headers the request did not send', () => {
    const creds = ServiceCredentials.from('reservation', headerLookup({ 'reservation-access-token': 'tok', slug_name: 'venue' }));
    expect(creds.missing(['authorization', 'employee_token', 'store_pin_code', 'slug_name'])).toEqual(['authorization', 'employee_token', 'store_pin_code']);
    expect(creds.missing(['reservation-access-token'])).toEqual([]);
  });

  it('counts a blank value as missing and does not send it', () => {
    const creds = ServiceCredentials.from('reservation', headerLookup({ 'reservation-access-token': '', authorization: 'Bearer k' }));
    expect(creds.missing(['reservation-access-token', 'authorization'])).toEqual(['reservation-access-token']);
    expect(creds.headers('reservation')).toEqual({ Authorization: 'Bearer k' });
  });

  it('lists every credential header of both services under both spellings, lower-cased', () => {
    expect([...ALL_CREDENTIAL_HEADERS].sort()).toEqual(
      ['reservation-access-token', 'authorization', 'employee_token', 'store_pin_code', 'slug_name', 'employee-token', 'store-pin-code', 'slug-name', 'pos-access-token'].sort(),
    );
    expect(CREDENTIAL_HEADERS.pos).toEqual(['Pos-Access-Token']);
  });
});

describe('callerHash', () => {
  const headers = (h: Record<string, string>) => (name: string) => h[name];
  it('is the same for the same credentials and differs for another venue', () => {
    const a = callerHash(headers({ 'pos-access-token': 'a', 'reservation-access-token': 'r' }));
    expect(callerHash(headers({ 'reservation-access-token': 'r', 'pos-access-token': 'a' }))).toBe(a);
    expect(callerHash(headers({ 'pos-access-token': 'b', 'reservation-access-token': 'r' }))).not.toBe(a);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
  });
  it('ignores headers that are not credentials and never contains a credential', () => {
    const a = callerHash(headers({ 'pos-access-token': 'secret-token' }));
    expect(callerHash(headers({ 'pos-access-token': 'secret-token', cookie: 'x' }))).toBe(a);
    expect(a).not.toContain('secret-token');
  });
  it('tells a missing header from an empty one split across headers', () => {
    expect(callerHash(headers({ 'pos-access-token': 'ab' }))).not.toBe(callerHash(headers({ 'pos-access-token': 'a', 'slug_name': 'b' })));
  });
  it('is the same whichever spelling carried a credential, and differs with its value', () => {
    const documented = callerHash(headers({ employee_token: 'emp', store_pin_code: '1234', slug_name: 'venue' }));
    expect(callerHash(headers({ 'employee-token': 'emp', 'store-pin-code': '1234', 'slug-name': 'venue' }))).toBe(documented);
    expect(callerHash(headers({ employee_token: 'emp', 'store-pin-code': '1234', slug_name: 'venue', 'slug-name': 'venue' }))).toBe(documented);
    expect(callerHash(headers({ 'employee-token': 'emp', 'store-pin-code': '1234', 'slug-name': 'other' }))).not.toBe(documented);
  });
});

describe('credentialSpellingConflict', () => {
  const headers = (h: Record<string, string>) => (name: string) => h[name];
  it('names both spellings of each header sent twice with different values, never a value', () => {
    const conflict = credentialSpellingConflict(headers({ slug_name: 'venue-a', 'slug-name': 'venue-b', employee_token: 'e1', 'employee-token': 'e2', 'store-pin-code': '1234' }));
    expect(conflict).toMatch(/EMPLOYEE_TOKEN and Employee-Token, SLUG_NAME and Slug-Name/);
    expect(conflict).not.toMatch(/STORE_PIN_CODE|venue-|e1|e2|1234/);
  });
  it('finds none for one spelling, for both with the same value, or when one of them is blank', () => {
    expect(credentialSpellingConflict(headers({ slug_name: 'venue' }))).toBeUndefined();
    expect(credentialSpellingConflict(headers({ 'slug-name': 'venue' }))).toBeUndefined();
    expect(credentialSpellingConflict(headers({ slug_name: 'venue', 'slug-name': 'venue' }))).toBeUndefined();
    expect(credentialSpellingConflict(headers({ slug_name: '', 'slug-name': 'venue' }))).toBeUndefined();
  });
});
