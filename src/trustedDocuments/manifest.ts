import { readFileSync } from 'node:fs';
import type { KeyValueCache, KeyValueCacheSetOptions } from '@apollo/utils.keyvaluecache';
import { getOperationAST, parse, specifiedRules, validate, type DocumentNode, type GraphQLSchema, type ParseOptions, type ValidationRule } from 'graphql';
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
export type ManifestOperation = Readonly<z.infer<typeof ManifestSchema>['operations'][number] & { source: string }>;

/** Thrown at start with every problem of the trusted documents at once, each naming its operation and file. */
export class TrustedDocumentsError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid trusted documents (TRUSTED_DOCUMENTS):\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'TrustedDocumentsError';
  }
}

function describe(op: ManifestOperation): string {
  return `operation ${op.name} (id ${op.id.slice(0, 12)}…) in ${op.source}`;
}

/** Reads manifests (one per app release still in use), checks each id is the SHA-256 of its body, and merges them by id. */
export function readManifests(paths: readonly string[]): Map<string, ManifestOperation> {
  const byId = new Map<string, ManifestOperation>();
  const problems: string[] = [];
  for (const path of paths) {
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(path, 'utf8'));
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
      if (sha256Hex(op.body) !== op.id) problems.push(`${describe(entry)}: the id is not the SHA-256 of the body`);
      else if (!byId.has(op.id)) byId.set(op.id, entry);
    }
  }
  if (problems.length > 0) throw new TrustedDocumentsError(problems);
  return byId;
}

/** What requests are checked with, so a trusted document is checked at start exactly as a request would be. */
export interface DocumentValidation {
  schema: GraphQLSchema;
  /** Beyond graphql-js's specified rules: the document limits and introspection. */
  validationRules: readonly ValidationRule[];
  /** The options every request's document is parsed with (the token limit, MAX_TOKENS). */
  parseOptions: ParseOptions;
}

/** Parses, validates and limit-checks every trusted document once, at start; throws naming each that failed and why. */
export function prepareDocuments(operations: ReadonlyMap<string, ManifestOperation>, validation: DocumentValidation): Map<string, DocumentNode> {
  const documents = new Map<string, DocumentNode>();
  const problems: string[] = [];
  const rules = [...specifiedRules, ...validation.validationRules];
  for (const op of operations.values()) {
    let document: DocumentNode;
    try {
      document = parse(op.body, validation.parseOptions);
    } catch (err) {
      problems.push(`${describe(op)} does not parse: ${messageOf(err)}`);
      continue;
    }
    const errors = validate(validation.schema, document, rules);
    const operation = errors.length === 0 ? getOperationAST(document, op.name) : undefined;
    if (errors.length > 0) problems.push(`${describe(op)} does not validate against the schema: ${errors.map((e) => e.message).join(' ')}`);
    else if (!operation || String(operation.operation) !== op.type) problems.push(`${describe(op)}: the body has no ${op.type} named ${op.name}`);
    else documents.set(op.id, document);
  }
  if (problems.length > 0) throw new TrustedDocumentsError(problems);
  return documents;
}

/**
 * Apollo's document store with the trusted documents pinned, so a request for one never parses or validates again.
 * Apollo keys entries `<schema hash>:<query hash>` (@apollo/server's requestPipeline); the query hash is the id.
 */
export class PinnedDocumentStore implements KeyValueCache<DocumentNode> {
  constructor(
    private readonly pinned: ReadonlyMap<string, DocumentNode>,
    private readonly rest: KeyValueCache<DocumentNode>,
  ) {}

  async get(key: string): Promise<DocumentNode | undefined> {
    return this.pinned.get(key.slice(key.lastIndexOf(':') + 1)) ?? this.rest.get(key);
  }

  async set(key: string, value: DocumentNode, options?: KeyValueCacheSetOptions): Promise<void> {
    if (!this.pinned.has(key.slice(key.lastIndexOf(':') + 1))) await this.rest.set(key, value, options);
  }

  async delete(key: string): Promise<boolean | void> {
    return this.rest.delete(key);
  }
}
