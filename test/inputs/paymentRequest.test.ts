import { InputError } from '../../src/errors/InputError';
import { parseArgs } from '../../src/inputs/parse';
import { UpdatePaymentRequestArgs } from '../../src/inputs/reservation';
import { thrownBy } from '../support/failures';

const ID = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';

describe('UpdatePaymentRequestArgs', () => {
  it('maps the input to the upstream body: the amount as a JSON number, the phone without its plus', () => {
    const { input } = parseArgs(UpdatePaymentRequestArgs, {
      input: { id: ID, amount: '125.50', currency: 'EUR', phoneNumber: '+905551112233', sendSms: true, expirationTime: 30, language: 'EN' },
    });
    expect(input).toMatchObject({ id: ID, amount: 125.5, currency: 'EUR', phone_number: '905551112233', send_sms: true, expiration_time: 30, language: 'EN' });
  });

  it.each([
    ['a zero amount', { amount: '0' }, 'input.amount'],
    ['more decimals than the currency has', { amount: '1.234', currency: 'EUR' }, 'input.amount'],
    ['an unknown currency', { currency: 'EUX' }, 'input.currency'],
    ['sendEmail without an e-mail', { sendEmail: true }, 'input.email'],
    ['sendSms without a phone number', { sendSms: true }, 'input.phoneNumber'],
    ['a lower-case language', { language: 'en' }, 'input.language'],
    ['an expiry of 0', { expirationTime: 0 }, 'input.expirationTime'],
  ])('refuses %s, naming the field', (_what, input, field) => {
    expect(thrownBy(InputError, () => parseArgs(UpdatePaymentRequestArgs, { input: { id: ID, ...input } })).field).toBe(field);
  });
});
