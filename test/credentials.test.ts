import { ALL_CREDENTIAL_HEADERS, CREDENTIAL_HEADERS, ServiceCredentials, callerHash } from '../src/credentials';
import { CLIENT_HEADERS, headerLookup } from './support/fixtures';

describe('ServiceCredentials', () => {
  it('asks for each header of its service by lower-cased name', () => {
    const asked: string[] = [];
    ServiceCredentials.from('reservation', (name) => {
      asked.push(name);
      return undefined;
    });
    expect(asked).toEqual(['reservation-access-token', 'authorization', 'employee_token', 'store_pin_code', 'slug_name']);
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

  it('lists every credential header of both services, lower-cased', () => {
    expect([...ALL_CREDENTIAL_HEADERS].sort()).toEqual(
      ['reservation-access-token', 'authorization', 'employee_token', 'store_pin_code', 'slug_name', 'pos-access-token'].sort(),
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
});
