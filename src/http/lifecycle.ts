import type { Server, ServerResponse } from 'node:http';

/**
 * `starting`: listening, not yet serving GraphQL; `ready`: serving; `draining`: still serving, readiness 503 and no
 * connection reused; `stopped`: the listener is closed and every request has finished or been cut.
 */
export type LifecycleState = 'starting' | 'ready' | 'draining' | 'stopped';

/** The readiness of one HTTP server, the requests it has in flight, and its drain. */
export class ServerLifecycle {
  private current: LifecycleState = 'starting';
  /**
   * The responses in flight, each in a slot of its own until it closes; a freed slot is reused. Not a Set: one that
   * takes and drops a response per request rebuilds its table every few dozen requests, and an old table promoted to
   * the old generation kept the responses it held (and all they reach) alive until a full collection
   * (docs/performance.md).
   */
  private readonly inFlight: Array<ServerResponse | undefined> = [];
  private readonly freeSlots: number[] = [];
  private inFlightCount = 0;
  private readonly idleWaiters: Array<() => void> = [];
  /** Long-lived responses (subscription streams) and how to end each; set once the drain has ended them. */
  private readonly streams = new Map<ServerResponse, () => void>();
  private streamsEnded = false;

  get state(): LifecycleState {
    return this.current;
  }

  /** What `/readyz` says. */
  get ready(): boolean {
    return this.current === 'ready';
  }

  /** Counts a request until its response closes (sent, or the client went away). */
  track(res: ServerResponse): void {
    const slot = this.freeSlots.pop() ?? this.inFlight.length;
    this.inFlight[slot] = res;
    this.inFlightCount += 1;
    if (this.isDraining()) res.setHeader('connection', 'close');
    res.once('close', () => this.settled(res, slot));
  }

  /**
   * A response that lasts as long as its client wants (a subscription's stream): not waited for as a request in
   * flight, but ended with `end` (its stream completed) once the drain has let the requests in flight finish, as
   * WebSockets are closed with 1001.
   */
  hold(res: ServerResponse, end: () => void): void {
    this.settled(res, this.inFlight.indexOf(res));
    // A client gone before its stream began has no 'close' left to come: nothing to keep.
    if (this.streamsEnded || res.destroyed || res.closed) return end();
    this.streams.set(res, end);
    res.once('close', () => this.streams.delete(res));
  }

  /** Resolves once no request is in flight (at once when none is). */
  idle(): Promise<void> {
    if (this.inFlightCount === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  markReady(): void {
    if (this.current === 'starting') this.current = 'ready';
  }

  /** Readiness turns 503; responses not yet begun ask their client to close the connection afterwards. */
  markDraining(): void {
    if (this.isDraining()) return;
    this.current = 'draining';
    for (const res of this.inFlight) if (res && !res.headersSent) res.setHeader('connection', 'close');
  }

  /** Lets the requests in flight finish, cuts those left after `timeoutMs`; resolves when the server is closed. */
  async drain(server: Server, timeoutMs: number): Promise<{ cut: number }> {
    this.markDraining();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // Once no request is in flight, every connection left holds none the gateway has received (idle keep-alives,
    // clients trickling headers, which Node stops timing once closing): cut them rather than wait for their timeouts.
    server.closeIdleConnections();
    // Streams are completed first, so that their clients read a clean end rather than a cut connection.
    void this.idle()
      .then(() => this.endStreams())
      .then(() => server.closeAllConnections());
    let cut = 0;
    const timer = setTimeout(() => {
      cut = this.inFlightCount;
      server.closeAllConnections();
    }, timeoutMs);
    await closed;
    clearTimeout(timer);
    this.current = 'stopped';
    return { cut };
  }

  /** `res` leaves its slot, if it still holds it (a held stream left it before it closes). */
  private settled(res: ServerResponse, slot: number): void {
    if (this.inFlight[slot] !== res) return;
    this.inFlight[slot] = undefined;
    this.freeSlots.push(slot);
    this.inFlightCount -= 1;
    if (this.inFlightCount === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  /** Ends every held stream; resolves once each response has closed. */
  private async endStreams(): Promise<void> {
    this.streamsEnded = true;
    const open = [...this.streams].filter(([res]) => !res.closed);
    await Promise.all(
      open.map(([res, end]) => {
        const closed = new Promise((resolve) => res.once('close', resolve));
        end();
        return closed;
      }),
    );
  }

  private isDraining(): boolean {
    return this.current === 'draining' || this.current === 'stopped';
  }
}
