import type { ServerResponse } from 'node:http';
/** The content type of every JSON answer the gateway writes itself. */
export const JSON_TYPE = 'application/json; charset=utf-8';

/** Writes a whole JSON answer with its length. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** The body of a refusal the gateway writes itself: one error with a contract code. */
export function errorBody(message: string, code: string): { errors: Array<{ message: string; extensions: { code: string } }> } {
  return { errors: [{ message, extensions: { code } }] };
}
