import { UpstreamError } from '../../src/errors';

/** The UpstreamError a call fails with; fails the test when the call succeeds or fails otherwise. */
export async function failureOf(promise: Promise<unknown>): Promise<UpstreamError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(UpstreamError);
    return err as UpstreamError;
  }
  throw new Error('expected the call to fail with an UpstreamError');
}
