import { AsyncLocalStorage } from 'node:async_hooks';
import { withOperationSpan } from './tracing';

/** What code far from the request (the transport's call listener) may need to know about it. */
export interface RequestScope {
  requestId: string;
}

const storage = new AsyncLocalStorage<RequestScope>();

/**
 * Runs the handling of one GraphQL HTTP request in its scope: its request id is visible to everything it calls
 * (`currentRequestId`), and, when tracing is on, it runs inside the operation's server span.
 */
export function inRequestScope<T>(
  request: { requestId: string; method: string; headers: Record<string, string | string[] | undefined> },
  fn: () => Promise<T>,
): Promise<T> {
  return storage.run({ requestId: request.requestId }, () => withOperationSpan(request, fn));
}

/** The id of the GraphQL request whose handling is running, if any. */
export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}
