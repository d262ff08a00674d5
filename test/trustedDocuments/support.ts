import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LA_TERRAZZA, type Stack } from '../support/stack';

export const MANIFEST_PATH = join(__dirname, '..', '..', 'operations', 'generated', 'persisted-query-manifest.json');

interface Manifest {
  operations: Array<{ id: string; name: string; type: string; body: string }>;
}

/** The repo's manifest, read as a client would. */
export function manifest(): Manifest {
  return JSON.parse(readFileSync(MANIFEST_PATH, 'utf8')) as Manifest;
}

export function operation(name: string): Manifest['operations'][number] {
  const op = manifest().operations.find((o) => o.name === name);
  if (!op) throw new Error(`no operation ${name} in the manifest`);
  return op;
}

export interface RawResponse {
  status: number;
  headers: Headers;
  body: { data?: Record<string, unknown> | null; errors?: Array<{ message: string; extensions?: { code?: string } }> };
}

/** POSTs any JSON body to the gateway with La Terrazza's credentials. */
export async function post(stack: Stack, body: unknown, headers: Record<string, string> = {}): Promise<RawResponse> {
  const res = await fetch(`${stack.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...LA_TERRAZZA, ...headers }, body: JSON.stringify(body) });
  return { status: res.status, headers: res.headers, body: (await res.json()) as RawResponse['body'] };
}

export const byPersistedQuery = (id: string, variables?: Record<string, unknown>) => ({ variables, extensions: { persistedQuery: { version: 1, sha256Hash: id } } });
