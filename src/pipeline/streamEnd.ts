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

async function* ending(results: AsyncIterableIterator<StreamResult>, then: () => Promise<void>): AsyncGenerator<StreamResult> {
  try {
    yield* results;
  } finally {
    await then();
  }
}
