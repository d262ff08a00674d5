import { leakedSecrets } from './leaks';

describe('leakedSecrets', () => {
  it('finds a long secret anywhere', () => {
    expect(leakedSecrets('{"msg":"x","h":"abc sandbox-pos-token-1 def"}', ['sandbox-pos-token-1'])).toEqual(['sandbox-pos-token-1']);
  });

  it('finds a 4-digit PIN standing alone in a JSON string', () => {
    expect(leakedSecrets('{"headers":{"store_pin_code":"4821"}}', ['4821'])).toEqual(['4821']);
    expect(leakedSecrets('{"msg":"pin 4821 refused"}', ['4821'])).toEqual(['4821']);
  });

  it('does not take a PIN for a part of an id, a timestamp or a duration', () => {
    const line = '{"time":1763948217000,"requestId":"9f34821a-0000-4000-8000-000000000000","durationMs":4821.3,"id":"0a1b2c3d-5e6f-4821-9abc-def012345678"}';
    expect(leakedSecrets(line, ['4821'])).toEqual([]);
  });
});
