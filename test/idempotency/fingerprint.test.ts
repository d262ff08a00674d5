import { canonicalJson, requestFingerprint } from '../../src/idempotency/idempotencyStep';

describe('fingerprint', () => {
  const base = { documentText: 'mutation Book { x }', operationName: 'Book', variables: { input: { a: 1, b: [1, { d: 2, c: 3 }] } } };

  it('writes canonical JSON with keys sorted at every depth and arrays in order', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, 1], c: null } })).toBe('{"a":{"c":null,"d":[2,1]},"b":1}');
    expect(canonicalJson('é"\n')).toBe(JSON.stringify('é"\n'));
  });

  it('is the same for the same request with its variables in another key order', () => {
    const reordered = { ...base, variables: { input: { b: [1, { c: 3, d: 2 }], a: 1 } } };
    expect(requestFingerprint(reordered)).toBe(requestFingerprint(base));
    expect(requestFingerprint(base)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('differs for another document text, operation name, variable value or array order', () => {
    const fp = requestFingerprint(base);
    expect(requestFingerprint({ ...base, documentText: 'mutation Book  { x }' })).not.toBe(fp);
    expect(requestFingerprint({ ...base, operationName: null })).not.toBe(fp);
    expect(requestFingerprint({ ...base, variables: { input: { a: 2, b: [1, { d: 2, c: 3 }] } } })).not.toBe(fp);
    expect(requestFingerprint({ ...base, variables: { input: { a: 1, b: [{ d: 2, c: 3 }, 1] } } })).not.toBe(fp);
  });

  it('tells an omitted variable from one set to null', () => {
    expect(requestFingerprint({ ...base, variables: { note: null } })).not.toBe(requestFingerprint({ ...base, variables: {} }));
  });
});
