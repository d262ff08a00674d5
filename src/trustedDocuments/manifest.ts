import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { sha256Hex } from '../sha256';
import { messageOf } from '../errors/errorFields';

/** Apollo's persisted query manifest, the format the contract names for trusted documents. */
const ManifestSchema = z.object({
  format: z.literal('apollo-persisted-query-manifest'),
  version: z.literal(1),
  operations: z.array(
    z.object({
      id: z.string().regex(/^[0-9a-f]{64}$/, 'must be the SHA-256 of the body, 64 lower-case hex digits'),
      name: z.string().min(1),
      type: z.enum(['query', 'mutation', 'subscription']),
      body: z.string().min(1),
    }),
  ),
});

/** One operation a manifest lists, with the file it came from (for messages a person can act on). */
export interface ManifestOperation {
  readonly id: string;
  readonly name: string;
  readonly type: 'query' | 'mutation' | 'subscription';
  readonly body: string;
  readonly source: string;
}

/** Thrown at start with every problem of the trusted documents at once, each naming its operation and file. */
export class TrustedDocumentsError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid trusted documents (TRUSTED_DOCUMENTS):\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'TrustedDocumentsError';
  }
}


/** Names an operation in a message: its name, the start of its id, and its manifest. */
export function describe(op: Pick<ManifestOperation, 'name' | 'id' | 'source'>): string {
  return `operation ${op.name} (id ${op.id.slice(0, 12)}…) in ${op.source}`;
}

/**
 * Reads manifests, checks their format and that each id is the SHA-256 of its body, and merges them by id. Several
 * manifests (one per app release still in use) may list the same operation; the same id always means the same body.
 */
export function readManifests(paths: readonly string[], read: (path: string) => string = (p) => readFileSync(p, 'utf8')): Map<string, ManifestOperation> {
  const byId = new Map<string, ManifestOperation>();
  const problems: string[] = [];
  for (const path of paths) {
    let json: unknown;
    try {
      json = JSON.parse(read(path));
    } catch (err) {
      problems.push(`${path}: cannot be read as JSON (${messageOf(err)})`);
      continue;
    }
    const parsed = ManifestSchema.safeParse(json);
    if (!parsed.success) {
      problems.push(...parsed.error.issues.map((i) => `${path}: ${i.path.join('.') || 'manifest'}: ${i.message}`));
      continue;
    }
    for (const op of parsed.data.operations) {
      const entry: ManifestOperation = { ...op, source: path };
      if (sha256Hex(op.body) !== op.id) {
        problems.push(`${describe(entry)}: the id is not the SHA-256 of the body`);
        continue;
      }
      if (!byId.has(op.id)) byId.set(op.id, entry);
    }
  }
  if (problems.length > 0) throw new TrustedDocumentsError(problems);
  return byId;
}
