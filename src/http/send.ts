import type { ServerResponse } from 'node:http';

/** Writes a whole JSON answer with its length. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** The body of a refusal the gateway writes itself: one error with a contract code. */
export function errorBody(message: string, code: string, extensions: Record<string, unknown> = {}): { errors: Array<{ message: string; extensions: Record<string, unknown> }> } {
  return { errors: [{ message, extensions: { code, ...extensions } }] };
}
