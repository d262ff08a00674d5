import { UpstreamError } from '../../src/errors/UpstreamError';

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

/**
 * The error a synchronous run throws, when it is an instance of `type`; rethrows any other error, and fails the test
 * when the run throws nothing.
 */
export function thrownBy<E>(type: abstract new (...args: never[]) => E, run: () => unknown): E {
  try {
    run();
  } catch (err) {
    if (err instanceof type) return err;
    throw err;
  }
  throw new Error(`expected the run to throw a ${type.name}`);
}
