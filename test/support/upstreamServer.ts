import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the scripted server saw it. `rawHeaders` keeps the names as the client spelled them. */
export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  rawHeaders: string[];
  body: string;
}

export type ScriptedHandler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

export interface ScriptedServer {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** How many TCP connections the server accepted, to see keep-alive at work. */
  connections(): number;
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1, port 0, that records every request and answers as the test scripts it. */
export async function startScriptedServer(handler: ScriptedHandler): Promise<ScriptedServer> {
  const requests: RecordedRequest[] = [];
  let connections = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, rawHeaders: req.rawHeaders, body });
      handler(req, res, body);
    });
  });
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        // Keep-alive sockets (and requests the script never answers) would hold close() open forever.
        server.closeAllConnections();
      }),
  };
}

/** Answers with a JSON body (or nothing when `body` is undefined). */
export function sendJson(res: ServerResponse, status: number, body?: unknown): void {
  if (body === undefined) {
    res.writeHead(status).end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}

/** A port that was open a moment ago and is closed now: connecting to it is refused. */
export async function closedPort(): Promise<number> {
  const server = await startScriptedServer(() => undefined);
  await server.close();
  return server.port;
}
