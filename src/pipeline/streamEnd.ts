import type { StreamResult } from './stream';
import type { GraphqlResponse } from './types';

/**
 * The same answer, with `then` run once its stream has ended (its last result sent, or the client gone): for a step
 * whose work comes after the whole answer (charging a client's upstream calls). A whole answer is returned as it is,
 * `then` run at once.
 */
export async function afterAnswer(response: GraphqlResponse, then: () => Promise<void>): Promise<GraphqlResponse> {
  if (!response.stream) {
    await then();
    return response;
  }
  return { ...response, stream: { kind: response.stream.kind, results: ending(response.stream.results, then) } };
}

/**
 * The results as they pass, `each` told of every one, and `then` run once when they end: the last one taken, the
 * reader gone (`return()`), or a failure. Not an async generator: a generator's `return()` waits behind its pending
 * `next()`, and a subscription's next event may be minutes away, so a client that leaves would end nothing until
 * then. `return()` goes to the results at once.
 */
export function ending(
  results: AsyncIterableIterator<StreamResult>,
  then: () => void | Promise<void>,
  each?: (result: StreamResult) => void,
): AsyncIterableIterator<StreamResult> {
  let ended: Promise<void> | undefined;
  const end = () => (ended ??= Promise.resolve().then(then));
  const after = async (result: IteratorResult<StreamResult>) => {
    if (result.done) await end();
    return result;
  };
  return {
    async next() {
      try {
        const result = await results.next();
        if (!result.done) each?.(result.value);
        return await after(result);
      } catch (err) {
        await end();
        throw err;
      }
    },
    async return(value?: unknown) {
      try {
        return (await results.return?.(value)) ?? { value: undefined, done: true };
      } finally {
        await end();
      }
    },
    async throw(err?: unknown) {
      try {
        if (!results.throw) throw err;
        return await after(await results.throw(err));
      } catch (thrown) {
        await end();
        throw thrown;
      }
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
