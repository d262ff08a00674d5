import type { Dispatcher } from 'undici';

/**
 * Whether one attempt's request went out on a connection. undici calls a handler's `onRequestStart` (its legacy
 * `onConnect`) in its HTTP/1.1 and HTTP/2 writers, on a connected socket, just before the request's bytes are
 * written, and nowhere else: a refused connection, a connect timeout, an open circuit or a shed call never reach it.
 * From that moment the service may have received the request, whatever happens next (a reset, a timeout, an answer).
 * The idempotency step keys "store the outcome" versus "leave the key free" on this (src/idempotency/).
 */
export class WireMark {
  written = false;
}

/**
 * The interceptor composed onto each upstream pool: a request whose `opaque` is a WireMark gets it set when undici
 * starts writing it. Any other request passes untouched.
 */
export const markWhenWritten: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (opts, handler) => {
  // `request()` hands its options to `dispatch` as given, `opaque` included, though DispatchOptions does not type it.
  const mark = 'opaque' in opts ? opts.opaque : undefined;
  return mark instanceof WireMark ? dispatch(opts, new WireSignalHandler(handler, mark)) : dispatch(opts, handler);
};

/** Passes every event on to the request's own handler; only notes the start of the write. */
class WireSignalHandler implements Dispatcher.DispatchHandler {
  constructor(
    private readonly handler: Dispatcher.DispatchHandler,
    private readonly mark: WireMark,
  ) {}

  onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void {
    this.handler.onRequestStart?.(controller, context);
    // A request whose signal fired while it waited for a connection is aborted here, before a byte is written.
    if (!controller.aborted) this.mark.written = true;
  }

  onRequestUpgrade(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onRequestUpgrade']>>): void {
    this.handler.onRequestUpgrade?.(...args);
  }

  onResponseStart(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseStart']>>): void {
    this.handler.onResponseStart?.(...args);
  }

  onResponseData(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseData']>>): void {
    this.handler.onResponseData?.(...args);
  }

  onResponseEnd(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseEnd']>>): void {
    this.handler.onResponseEnd?.(...args);
  }

  onResponseError(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseError']>>): void {
    this.handler.onResponseError?.(...args);
  }
}
