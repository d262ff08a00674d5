/** One listener of a CallAbort: an object with `handleEvent`, as AbortSignal also takes. */
export interface AbortListener {
  handleEvent(): void;
}

/**
 * What aborts an upstream call: the request's deadline, or a shared read nobody waits for any more. AbortSignal has
 * this shape too; the gateway's own (CallAbort) is a plain object, where an AbortSignal made per request outlived
 * young-generation collections on Node 20 and kept alive what listened on it (docs/performance.md).
 */
export interface CallSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: AbortListener): void;
  removeEventListener(type: 'abort', listener: AbortListener): void;
}

/** An abort of the gateway's own, and its own signal: `abort` tells each listener once. */
export class CallAbort implements CallSignal {
  aborted = false;
  reason: unknown = undefined;
  private listeners: AbortListener[] = [];

  addEventListener(_type: 'abort', listener: AbortListener): void {
    if (!this.listeners.includes(listener)) this.listeners.push(listener);
  }

  removeEventListener(_type: 'abort', listener: AbortListener): void {
    const at = this.listeners.indexOf(listener);
    if (at >= 0) this.listeners.splice(at, 1);
  }

  /**
   * As EventTarget dispatches: each listener registered now is told unless removed meanwhile, and one that throws
   * keeps none of the others from being told (the first error is thrown once all have been).
   */
  abort(reason: unknown = new DOMException('This operation was aborted', 'AbortError')): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    let failed: { err: unknown } | undefined;
    for (const listener of [...this.listeners]) {
      if (!this.listeners.includes(listener)) continue;
      try {
        listener.handleEvent();
      } catch (err) {
        failed ??= { err };
      }
    }
    this.listeners = [];
    if (failed) throw failed.err;
  }
}
