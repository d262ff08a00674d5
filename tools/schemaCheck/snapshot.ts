import { printSchemaWithDirectives } from '@graphql-tools/utils';
import { buildSchema, lexicographicSortSchema } from 'graphql';
import { sha256Hex } from '../../src/sha256';

/** Where the published schema's snapshot is committed (beside the SDL, outside what the gateway and codegen read). */
export const SNAPSHOT_PATH = 'schema/published/schema.graphql';

const HEADER = [
  '# The published schema: what shipped clients were built against. `npm run schema:check` compares schema/*.graphql',
  '# with it; `npm run schema:snapshot` rewrites it (and prints the line to add to CHANGELOG.md\'s Schema changelog).',
  '# Do not edit by hand.',
];

/** The schema printed in a stable form: types and fields sorted, applied directives (e.g. @cost) kept. */
export function printPublished(sdl: string): string {
  return `${printSchemaWithDirectives(lexicographicSortSchema(buildSchema(sdl)))}\n`;
}

/** The version of a printed schema: the start of its SHA-256, as the changelog names it. */
export function versionOf(printed: string): string {
  return sha256Hex(printed).slice(0, 12);
}

export function renderSnapshot(sdl: string): { text: string; version: string } {
  const printed = printPublished(sdl);
  const version = versionOf(printed);
  return { text: `${HEADER.join('\n')}\n# version: ${version}\n\n${printed}`, version };
}

/** The snapshot's recorded version and its SDL; `edited` when the SDL no longer matches the version. */
export function readSnapshot(text: string): { version: string | undefined; sdl: string; edited: boolean } {
  const version = /^# version: ([0-9a-f]{12})$/m.exec(text)?.[1];
  const sdl = text.replace(/^(#.*\n)+\n?/, '');
  return { version, sdl, edited: version === undefined || versionOf(sdl) !== version };
}
