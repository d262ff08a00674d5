import { amountDigitsIssue, fractionDigits, localeTag, minorUnitsOf } from '../../src/inputs/standards';
import { startStack, type Stack } from '../support/stack';
import { SAMPLE } from '../../src/sandbox';

describe('standards', () => {
  it('reads minor units from ISO 4217 through Intl', () => {
    expect([minorUnitsOf('EUR'), minorUnitsOf('JPY'), minorUnitsOf('KWD')]).toEqual([2, 0, 3]);
  });

  it('counts the significant digits after the point', () => {
    expect(['12', '12.50', '12.345', '1000.00', '0.001'].map(fractionDigits)).toEqual([0, 1, 3, 0, 3]);
  });

  it.each([
    ['12.34', 'EUR', true],
    ['12.345', 'EUR', false],
    ['1000.00', 'JPY', true],
    ['1000.5', 'JPY', false],
    ['1.234', 'KWD', true],
    ['1.2345', 'KWD', false],
    ['1.234', undefined, true],
    ['1.2345', undefined, false],
  ])('judges %s %s as allowed: %s', (amount, currency, allowed) => {
    expect(amountDigitsIssue(amount, currency) === undefined).toBe(allowed);
  });

  it('takes any well-formed BCP 47 tag in its canonical form and refuses the rest', () => {
    expect(['en', 'fr', 'pt-BR', 'zh-Hant-TW', 'EN', 'de-ch'].map((t) => localeTag.safeParse(t).data)).toEqual(['en', 'fr', 'pt-BR', 'zh-Hant-TW', 'en', 'de-CH']);
    expect(['en_US', '', 'english!', 'x', '12'].map((t) => localeTag.safeParse(t).success)).toEqual([false, false, false, false, false]);
  });
});

describe('input rules from the standards, through the gateway', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack.close());
  beforeEach(() => stack.sandbox.resetRequests());

  const pay = `mutation($input: UpdatePaymentRequestInput!) { updatePaymentRequest(input: $input) { paymentRequest { amount currency } } }`;
  const offDay = `mutation($input: CreateOffDayInput!) { createOffDay(input: $input) { offDay { translations { locale text } } } }`;

  it.each([
    [{ amount: '12.345', currency: 'EUR' }, 'input.amount', /at most 2 decimal places.*EUR/],
    [{ amount: 1000.5, currency: 'JPY' }, 'input.amount', /no decimal places.*JPY/],
    [{ amount: '1.2345', currency: 'KWD' }, 'input.amount', /at most 3 decimal places.*KWD/],
    [{ amount: '10.00', currency: 'XYZ' }, 'input.currency', /ISO 4217/],
    [{ amount: '10.00', currency: 'eur' }, 'input.currency', /ISO 4217/],
  ])('refuses %j with BAD_USER_INPUT naming %s before any upstream call', async (extra, field, message) => {
    const res = await stack.gql(pay, { input: { id: SAMPLE.laTerrazza.paymentRequestId, ...extra } });
    expect(res.body.errors![0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field });
    expect(res.body.errors![0].message).toMatch(message);
    expect(stack.sandbox.requests).toHaveLength(0);
  });

  it.each([
    [{ amount: '12.34', currency: 'EUR' }, 12.34],
    [{ amount: 1500, currency: 'JPY' }, 1500],
    [{ amount: '1.234', currency: 'KWD' }, 1.234],
  ])('accepts %j', async (extra, sent) => {
    const res = await stack.gql(pay, { input: { id: SAMPLE.laTerrazza.paymentRequestId, ...extra } });
    expect(res.body.errors).toBeUndefined();
    expect(stack.sandbox.requests[0].body).toMatchObject({ amount: sent, currency: extra.currency });
  });

  it('accepts any well-formed BCP 47 locale for an off day, sent in its canonical form', async () => {
    const translations = [{ locale: 'fr', text: 'Fermé' }, { locale: 'pt-br', text: 'Fechado' }, { locale: 'ja', text: '休業' }];
    const res = await stack.gql(offDay, { input: { revenueCenterId: SAMPLE.laTerrazza.revenueCenterIds[0], date: '2099-12-31T00:00', translations } });
    expect(res.body.errors).toBeUndefined();
    expect(stack.sandbox.requests[0].body).toMatchObject({ translations: [translations[0], { locale: 'pt-BR', text: 'Fechado' }, translations[2]] });
  });

  it('refuses a locale that is no BCP 47 tag, naming it', async () => {
    const translations = [{ locale: 'en', text: 'Closed' }, { locale: 'en_US', text: 'Closed' }];
    const res = await stack.gql(offDay, { input: { revenueCenterId: SAMPLE.laTerrazza.revenueCenterIds[0], date: '2099-12-31T00:00', translations } });
    expect(res.body.errors![0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.translations[1].locale' });
    expect(stack.sandbox.requests).toHaveLength(0);
  });
});
