import type { ServerResponse } from 'node:http';
/** The content type of every JSON answer the gateway writes itself. */
export const JSON_TYPE = 'application/json; charset=utf-8';

/** Writes a whole answer with its length; stored nowhere unless `headers` says otherwise (CONTRACT.md, "HTTP caching"). */
export function send(res: ServerResponse, status: number, contentType: string, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'cache-control': 'no-store', ...headers, 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  send(res, status, JSON_TYPE, JSON.stringify(body), headers);
}

/** The body of a refusal the gateway writes itself: one error with a contract code. */
export function errorBody(message: string, code: string): { errors: Array<{ message: string; extensions: { code: string } }> } {
  return { errors: [{ message, extensions: { code } }] };
}
