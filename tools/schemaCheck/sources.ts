import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

/** A file the check reads, named by its path from the repository root (as people and CI output name it). */
export interface SourceFile {
  path: string;
  text: string;
}

export const ROOT = join(__dirname, '..', '..');

/** Manifests the check validates: the generated one and those pinned by shipped app releases. */
export const MANIFEST_DIRS = ['operations/generated', 'operations/releases'];

export function readSource(path: string): SourceFile {
  return { path, text: readFileSync(join(ROOT, path), 'utf8') };
}

/** Files under `dir` (recursively) whose names end with `suffix`, sorted; none when `dir` does not exist. */
export function filesUnder(dir: string, suffix: string, recursive = true): SourceFile[] {
  const absolute = join(ROOT, dir);
  if (!existsSync(absolute)) return [];
  const found: string[] = [];
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      if (entry.isDirectory() && recursive) walk(join(at, entry.name));
      else if (entry.isFile() && entry.name.endsWith(suffix)) found.push(relative(ROOT, join(at, entry.name)));
    }
  };
  walk(absolute);
  return found.sort().map(readSource);
}

/** Everything `npm run schema:check` looks at, as it is in the working tree. */
export function repositorySources() {
  return {
    schemaFiles: filesUnder('schema', '.graphql', false),
    snapshot: existsSync(join(ROOT, 'schema/published/schema.graphql')) ? readSource('schema/published/schema.graphql').text : '',
    changelog: readSource('CHANGELOG.md').text,
    operationFiles: filesUnder('operations', '.graphql').filter((f) => !f.path.startsWith('operations/generated/')),
    manifests: MANIFEST_DIRS.flatMap((dir) => filesUnder(dir, '.json', false)).filter((f) => isManifest(f.text)),
  };
}

function isManifest(text: string): boolean {
  try {
    return (JSON.parse(text) as { format?: unknown }).format === 'apollo-persisted-query-manifest';
  } catch {
    return false;
  }
}
