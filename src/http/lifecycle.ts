import type { Server, ServerResponse } from 'node:http';

/**
 * - `starting`: listening, but not yet able to serve GraphQL (readiness 503);
 * - `ready`: serving (readiness 200);
 * - `draining`: still serving, readiness 503, so load balancers take the replica out; connections are not reused;
 * - `stopped`: the listener is closed and every request has finished or been cut.
 */
export type LifecycleState = 'starting' | 'ready' | 'draining' | 'stopped';

export interface DrainResult {
  /** Requests still in flight when the drain timeout passed, whose connections were cut. */
  cut: number;
}

/** The readiness of one HTTP server, the requests it has in flight, and its drain. */
export class ServerLifecycle {
  private current: LifecycleState = 'starting';
  private readonly inFlight = new Set<ServerResponse>();
  private whenIdle?: () => void;
  private readonly idleWaiters: Array<() => void> = [];

  get state(): LifecycleState {
    return this.current;
  }

  /** What `/readyz` says. */
  get ready(): boolean {
    return this.current === 'ready';
  }

  /** Counts a request until its response closes (sent, or the client went away). */
  track(res: ServerResponse): void {
    this.inFlight.add(res);
    if (this.isDraining()) res.setHeader('connection', 'close');
    res.once('close', () => {
      this.inFlight.delete(res);
      if (this.inFlight.size > 0) return;
      this.whenIdle?.();
      for (const resolve of this.idleWaiters.splice(0)) resolve();
    });
  }

  /** Resolves once no request is in flight (at once when none is). */
  idle(): Promise<void> {
    if (this.inFlight.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  markReady(): void {
    if (this.current === 'starting') this.current = 'ready';
  }

  /** Readiness turns 503; responses not yet begun ask their client to close the connection afterwards. */
  markDraining(): void {
    if (this.isDraining()) return;
    this.current = 'draining';
    for (const res of this.inFlight) if (!res.headersSent) res.setHeader('connection', 'close');
  }

  /**
   * Stops accepting connections, lets the requests in flight finish, and closes each keep-alive connection as it
   * goes idle. After `timeoutMs`, the connections still busy are cut. Resolves when the server is closed.
   */
  async drain(server: Server, timeoutMs: number): Promise<DrainResult> {
    this.markDraining();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // A connection that finished its last request sits idle and would keep close() waiting for its keep-alive timeout.
    // Once closing, Node no longer enforces the headers and request timeouts either: a client still trickling its
    // headers would hold the drain until its timeout. So when no request is in flight, every connection left is cut:
    // none of them holds a request the gateway has received.
    this.whenIdle = () => server.closeAllConnections();
    if (this.inFlight.size === 0) server.closeAllConnections();
    else server.closeIdleConnections();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    const outcome = await Promise.race([closed.then(() => 'closed' as const), timedOut]);
    clearTimeout(timer);
    let cut = 0;
    if (outcome === 'timeout') {
      cut = this.inFlight.size;
      server.closeAllConnections();
      await closed;
    }
    this.current = 'stopped';
    return { cut };
  }

  private isDraining(): boolean {
    return this.current === 'draining' || this.current === 'stopped';
  }
}
