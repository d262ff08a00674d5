import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The SDL of schema/*.graphql, read once at start: found beside src/ when run from source, beside dist/ when built. */
export function loadTypeDefs(dir = findSchemaDir(__dirname)): string {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.graphql'))
    .sort()
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .join('\n');
}

function findSchemaDir(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'schema'))) return join(dir, 'schema');
    if (dirname(dir) === dir) throw new Error(`schema/ not found above ${from}`);
  }
}
