/**
 * How one GraphQL operation request names its document: by id (Apollo's persisted query extension without a query,
 * or `documentId` as the GraphQL-over-HTTP persisted documents appendix has it), as free-form text, or not at all.
 */
export type DocumentAsk =
  | { kind: 'id'; id: string; via: 'persistedQuery' | 'documentId' }
  | { kind: 'text'; query: string; apqHash?: string }
  | { kind: 'none' };

/** The fields of one operation request, from a POST body's object or a GET's query string. */
export interface OperationFields {
  query?: unknown;
  documentId?: unknown;
  extensions?: unknown;
}

const HEX_ID = /^[0-9a-f]{64}$/;

export function documentAsk(fields: OperationFields): DocumentAsk {
  if (typeof fields.documentId === 'string') {
    const id = fields.documentId.startsWith('sha256:') ? fields.documentId.slice('sha256:'.length) : fields.documentId;
    return { kind: 'id', id: id.toLowerCase(), via: 'documentId' };
  }
  const persisted = persistedQueryOf(fields.extensions);
  if (typeof fields.query === 'string' && fields.query !== '') {
    return persisted ? { kind: 'text', query: fields.query, apqHash: persisted } : { kind: 'text', query: fields.query };
  }
  if (persisted !== undefined) return { kind: 'id', id: persisted.toLowerCase(), via: 'persistedQuery' };
  return { kind: 'none' };
}

/** Whether an id can name a trusted document at all (64 hex digits), before it is looked up. */
export function isWellFormedId(id: string): boolean {
  return HEX_ID.test(id);
}

/** `extensions.persistedQuery.sha256Hash` of a version-1 persisted query; other versions are Apollo's to refuse. */
export function persistedQueryOf(extensions: unknown): string | undefined {
  if (typeof extensions !== 'object' || extensions === null) return undefined;
  const persisted = 'persistedQuery' in extensions ? extensions.persistedQuery : undefined;
  if (typeof persisted !== 'object' || persisted === null || !('version' in persisted) || !('sha256Hash' in persisted)) return undefined;
  return persisted.version === 1 && typeof persisted.sha256Hash === 'string' ? persisted.sha256Hash : undefined;
}

/** The extensions without `persistedQuery` (undefined when nothing else is left). */
export function withoutPersistedQuery(extensions: unknown): Record<string, unknown> | undefined {
  if (typeof extensions !== 'object' || extensions === null) return undefined;
  const rest: Record<string, unknown> = { ...extensions };
  delete rest.persistedQuery;
  return Object.keys(rest).length > 0 ? rest : undefined;
}
