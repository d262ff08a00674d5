import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A proxy in front of a sandbox service that holds every answer `delayMs`, and answers 500 to the paths `fails` names. */
export interface SlowProxy {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** The service behind it; settable once it has started. */
  target: string;
  delayMs: number;
  fails: (path: string) => boolean;
  /** Requests received, and answers sent (a held answer counts once it is sent). */
  readonly counts: { received: number; answered: number };
  close(): Promise<void>;
}

export async function startSlowProxy(): Promise<SlowProxy> {
  const server: Server = createServer((req, res) => {
    proxy.counts.received += 1;
    const path = req.url ?? '/';
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => name !== 'host' && name !== 'connection')) as Record<string, string>;
    const upstream = proxy.fails(path) ? Promise.resolve(undefined) : fetch(`${proxy.target}${path}`, { method: req.method, headers });
    const answer = async () => {
      const got = await upstream;
      proxy.counts.answered += 1;
      if (!got) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ errors: [{ message: 'injected failure' }] }));
        return;
      }
      res.writeHead(got.status, { 'content-type': got.headers.get('content-type') ?? 'application/json' });
      res.end(Buffer.from(await got.arrayBuffer()));
    };
    setTimeout(() => void answer(), proxy.delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxy: SlowProxy = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    target: '',
    delayMs: 0,
    fails: () => false,
    counts: { received: 0, answered: 0 },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return proxy;
}
