import type { FormattedExecutionResult } from 'graphql';
import { newer, type LiveEvent, type Version } from './liveEvent';

/** Who a subscription belongs to: its client identity (for LIVE_MAX_POLLS_PER_CLIENT) and that client's upstream-call budget. */
export interface PollOwner {
  client: string;
  /** Charges one read's upstream calls to the client's budget; false once the budget is spent. */
  charge(calls: number): Promise<boolean>;
}

/**
 * One subscriber's events, as the async iterator a transport reads. It holds at most one event not yet taken, the
 * newest: each event is a whole snapshot, so a slow reader skips to the latest instead of queueing. It never takes an
 * event whose version is not newer than the last it took. It ends on `return()` (the client completed, or its socket
 * went away) or after a final event; `onEnd` is told once.
 */
export class LiveSubscriber implements AsyncIterableIterator<FormattedExecutionResult> {
  /** Events handed to the reader. */
  events = 0;
  /** Upstream calls of this replica's reads while this subscriber was there (shared with its poll's other subscribers). */
  upstreamCalls = 0;
  private pending?: FormattedExecutionResult;
  private version?: Version;
  private waiting?: (result: IteratorResult<FormattedExecutionResult>) => void;
  private ended = false;

  constructor(
    private readonly onEnd: (subscriber: LiveSubscriber) => void,
    readonly owner?: PollOwner,
  ) {}

  /** A poll's event: taken only when newer than the last one taken. */
  push(event: LiveEvent): void {
    if (this.ended || (this.version && !newer(event.version, this.version))) return;
    this.version = event.version;
    this.offer(event.result, event.final);
  }

  /** A last event of this subscriber's own (its client's budget is spent): it replaces anything pending, then ends. */
  refuse(result: FormattedExecutionResult): void {
    if (!this.ended) this.offer(result, true);
  }

  next(): Promise<IteratorResult<FormattedExecutionResult>> {
    const value = this.pending;
    if (value !== undefined) {
      this.pending = undefined;
      this.events += 1;
      return Promise.resolve({ value, done: false });
    }
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => (this.waiting = resolve));
  }

  return(): Promise<IteratorResult<FormattedExecutionResult>> {
    this.pending = undefined;
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private offer(result: FormattedExecutionResult, final: boolean): void {
    if (this.waiting) {
      this.events += 1;
      this.waiting({ value: result, done: false });
      this.waiting = undefined;
    } else this.pending = result;
    if (final) this.end();
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    this.waiting?.({ value: undefined, done: true });
    this.waiting = undefined;
    this.onEnd(this);
  }
}
