import { ErrorCode } from '../../src/errors/codes';
import { documentedCode } from '../../src/upstreams/errorCodes';

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
