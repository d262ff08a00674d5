import { connect, createServer, type Socket } from 'node:net';

/** A loopback TCP proxy to `target` whose traffic a test can hold back, as a congested network or a stalled peer would. */
export interface TcpProxy {
  port: number;
  /** Holds every byte in both directions until `resume`: commands sent through it answer late (or time out). */
  stall(): void;
  resume(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<[Socket, Socket]>();
  let stalled = false;
  const server = createServer((inbound) => {
    const outbound = connect(target.port, target.host);
    const pair: [Socket, Socket] = [inbound, outbound];
    pairs.add(pair);
    inbound.pipe(outbound);
    outbound.pipe(inbound);
    // pipe() resumes its source on drain: holding back is done by pausing the sockets' reads and, for pipes
    // resumed meanwhile, by unpiping them until `resume`.
    if (stalled) for (const s of pair) s.pause();
    const end = () => {
      pairs.delete(pair);
      inbound.destroy();
      outbound.destroy();
    };
    inbound.on('error', end).on('close', end);
    outbound.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy has no port');
  return {
    port: address.port,
    stall() {
      stalled = true;
      for (const [inbound, outbound] of pairs) {
        inbound.unpipe(outbound);
        outbound.unpipe(inbound);
        inbound.pause();
        outbound.pause();
      }
    },
    resume() {
      stalled = false;
      for (const [inbound, outbound] of pairs) {
        inbound.pipe(outbound);
        outbound.pipe(inbound);
      }
    },
    async close() {
      for (const [inbound, outbound] of pairs) {
        inbound.destroy();
        outbound.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
