import type { Server, ServerResponse } from 'node:http';

/**
 * `starting`: listening, not yet serving GraphQL; `ready`: serving; `draining`: still serving, readiness 503 and no
 * connection reused; `stopped`: the listener is closed and every request has finished or been cut.
 */
export type LifecycleState = 'starting' | 'ready' | 'draining' | 'stopped';

/** The readiness of one HTTP server, the requests it has in flight, and its drain. */
export class ServerLifecycle {
  private current: LifecycleState = 'starting';
  private readonly inFlight = new Set<ServerResponse>();
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
      if (this.inFlight.size === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
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

  /** Lets the requests in flight finish, cuts those left after `timeoutMs`; resolves when the server is closed. */
  async drain(server: Server, timeoutMs: number): Promise<{ cut: number }> {
    this.markDraining();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // Once no request is in flight, every connection left holds none the gateway has received (idle keep-alives,
    // clients trickling headers, which Node stops timing once closing): cut them rather than wait for their timeouts.
    server.closeIdleConnections();
    void this.idle().then(() => server.closeAllConnections());
    let cut = 0;
    const timer = setTimeout(() => {
      cut = this.inFlight.size;
      server.closeAllConnections();
    }, timeoutMs);
    await closed;
    clearTimeout(timer);
    this.current = 'stopped';
    return { cut };
  }

  private isDraining(): boolean {
    return this.current === 'draining' || this.current === 'stopped';
  }
}
