import { CriticalityLevel, diff, type Change } from '@graphql-inspector/core';
import { buildSchema, parse, specifiedRules, validate, type GraphQLError, type GraphQLSchema } from 'graphql';
import { coordinatesUsed, operationsFromFiles, operationsFromManifests, type ClientOperation } from './operations';
import { readSnapshot, SNAPSHOT_PATH } from './snapshot';
import type { SourceFile } from './sources';

export interface SchemaCheckInput {
  /** schema/*.graphql as it is now. */
  schemaFiles: readonly SourceFile[];
  /** The committed snapshot of the published schema (schema/published/schema.graphql). */
  snapshot: string;
  /** CHANGELOG.md, whose "Schema changelog" section must name the snapshot's version. */
  changelog: string;
  /** operations/**\/*.graphql (not the generated files). */
  operationFiles: readonly SourceFile[];
  /** Manifests clients use: the generated one and those of shipped releases. */
  manifests: readonly SourceFile[];
}

export interface SchemaCheckReport {
  /** Each one fails the check; each names the change, the operations it breaks and the files. */
  errors: string[];
  /** What a reviewer may want to see: dangerous and unpublished changes. */
  notes: string[];
}

const PUBLISH = `to publish a breaking change on purpose: \`npm run schema:snapshot\`, then add the line it prints to CHANGELOG.md's "Schema changelog", in the same change`;

/**
 * The schema against what clients use: the published snapshot (breaking changes need a new snapshot and a
 * changelog line), and every operation in operations/ and in the manifests (each must still validate, whatever
 * inspector calls the change).
 */
export async function checkSchema(input: SchemaCheckInput): Promise<SchemaCheckReport> {
  const errors: string[] = [];
  const notes: string[] = [];
  let current: GraphQLSchema;
  try {
    current = buildSchema(input.schemaFiles.map((f) => f.text).join('\n'));
  } catch (err) {
    return { errors: [`schema/*.graphql does not build: ${message(err)}`], notes };
  }

  const files = operationsFromFiles(input.operationFiles);
  const manifests = operationsFromManifests(input.manifests);
  const operations = [...files.operations, ...manifests.operations];
  errors.push(...files.problems, ...manifests.problems);
  for (const op of operations) {
    const failures = validate(current, op.document, specifiedRules);
    if (failures.length > 0) errors.push(`operation ${op.name} (${op.where}) no longer validates against the schema: ${failures.map(located).join(' ')}`);
  }

  if (input.snapshot === '') {
    errors.push(`there is no published snapshot (${SNAPSHOT_PATH}): run \`npm run schema:snapshot\``);
    return { errors, notes };
  }
  const snapshot = readSnapshot(input.snapshot);
  if (snapshot.edited) errors.push(`${SNAPSHOT_PATH} does not match its recorded version (edited by hand?): run \`npm run schema:snapshot\``);
  else if (!changelogVersions(input.changelog).has(snapshot.version!)) {
    errors.push(`the published snapshot (version ${snapshot.version}) has no line in CHANGELOG.md's "Schema changelog": add "- \`${snapshot.version}\` <date>: <what changed>"`);
  }
  let published: GraphQLSchema;
  try {
    published = buildSchema(snapshot.sdl);
  } catch (err) {
    errors.push(`${SNAPSHOT_PATH} does not build: ${message(err)}`);
    return { errors, notes };
  }

  const changes = await diff(published, current);
  const users = usersOf(operations, published);
  const fileOf = schemaFileOfType(input.schemaFiles);
  let unpublished = 0;
  for (const change of changes) {
    const line = `${change.message} [${change.path ?? 'schema'}, ${where(change, fileOf)}]${usedBy(change, users)}`;
    if (change.criticality.level === CriticalityLevel.Breaking) errors.push(`breaking change not in the published snapshot: ${line}\n    ${PUBLISH}`);
    else if (change.criticality.level === CriticalityLevel.Dangerous) notes.push(`dangerous change: ${line}`);
    else unpublished += 1;
  }
  if (unpublished > 0) notes.push(`${unpublished} safe change(s) not yet in the published snapshot (\`npm run schema:snapshot\` records them)`);
  return { errors, notes };
}

/** The versions a changelog's "Schema changelog" section names, as `\`0123456789ab\``. */
export function changelogVersions(changelog: string): Set<string> {
  const lines = changelog.split('\n');
  const start = lines.findIndex((l) => /^#+ Schema changelog\s*$/.test(l));
  if (start < 0) return new Set();
  const end = lines.findIndex((l, i) => i > start && /^#+ /.test(l));
  const section = lines.slice(start + 1, end < 0 ? undefined : end).join('\n');
  return new Set([...section.matchAll(/`([0-9a-f]{12})`/g)].map((m) => m[1]));
}

function usersOf(operations: readonly ClientOperation[], published: GraphQLSchema): Array<{ op: ClientOperation; used: Set<string> }> {
  return operations.map((op) => ({ op, used: coordinatesUsed(op.document, published) }));
}

/** The operations touching the change's coordinate (or anything under it, for a type). */
function usedBy(change: Change, users: ReadonlyArray<{ op: ClientOperation; used: Set<string> }>): string {
  const path = change.path;
  if (!path) return '';
  const hits = users.filter(({ used }) => used.has(path) || [...used].some((c) => c.startsWith(`${path}.`)));
  if (hits.length === 0) return '\n    used by no operation in operations/ or the manifests';
  return `\n    used by: ${hits.map(({ op }) => `${op.name} (${op.where})`).join(', ')}`;
}

/** The schema file defining the change's type, or the snapshot for a type that is gone. */
function where(change: Change, fileOf: ReadonlyMap<string, string>): string {
  const type = change.path?.split('.')[0];
  return (type && fileOf.get(type)) ?? SNAPSHOT_PATH;
}

function schemaFileOfType(files: readonly SourceFile[]): Map<string, string> {
  const byType = new Map<string, string>();
  for (const file of files) {
    try {
      for (const d of parse(file.text).definitions) if ('name' in d && d.name) byType.set(d.name.value, file.path);
    } catch {
      // a file that does not parse is reported when the schema is built
    }
  }
  return byType;
}

function located(error: GraphQLError): string {
  const loc = error.locations?.[0];
  return loc && error.source ? `${error.message} (${error.source.name}:${loc.line}:${loc.column})` : error.message;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
