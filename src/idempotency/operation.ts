import type { KeyValueCache } from '@apollo/utils.keyvaluecache';
import { OperationTypeNode, getOperationAST, parse, type DocumentNode } from 'graphql';
import { rootFieldNames } from '../graphqlDocument';
import { persistedQueryOf } from '../trustedDocuments/requestShape';
import { z } from 'zod';

/** The mutation a request would run, as much of it as idempotency needs. */
export interface SelectedMutation {
  documentText: string;
  operationName: string | null;
  variables: Readonly<Record<string, unknown>>;
  /** Names (not aliases) of the mutation fields it selects at its root, through fragments too. */
  rootFields: ReadonlySet<string>;
}

/**
 * The parts of a GraphQL-over-HTTP POST body read here; anything else is Apollo's to refuse. Read as leniently as
 * Apollo reads them: a body Apollo would run must never pass as "not a mutation" (e.g. `"persistedQuery": null`,
 * which Apollo treats as absent), or a keyed mutation would run unguarded.
 */
const Body = z.object({
  query: z.string().optional(),
  operationName: z.string().nullish(),
  variables: z.record(z.string(), z.unknown()).nullish(),
  extensions: z.record(z.string(), z.unknown()).nullish(),
});

/** Apollo Server's key prefix in the persisted query cache (APQ_CACHE_PREFIX in its request pipeline). */
const APQ_PREFIX = 'apq:';

export interface SelectedMutationOptions {
  /** Parsing stops past this many tokens (MAX_TOKENS), as Apollo's would: a huge document costs no more here. */
  maxTokens: number;
  /** Where a mutation sent as an APQ hash alone finds its text; without it such a request is not recognised. */
  persistedQueries?: KeyValueCache<string>;
}

/**
 * The mutation that a single-operation POST body selects, or undefined when it selects something else (a query), is
 * not a well-formed request (Apollo will refuse it, before any upstream call), or names a persisted query this
 * replica cannot find (Apollo answers PERSISTED_QUERY_NOT_FOUND; the client's retry carries the text).
 */
export async function selectedMutation(body: unknown, options: SelectedMutationOptions): Promise<SelectedMutation | undefined> {
  const parsed = Body.safeParse(body);
  if (!parsed.success) return undefined;
  const { query, operationName, variables, extensions } = parsed.data;
  // Apollo refuses a persisted query of another version than 1 before it runs anything.
  const hash = persistedQueryOf(extensions);
  const text = query ?? (hash && options.persistedQueries ? await options.persistedQueries.get(APQ_PREFIX + hash) : undefined);
  // A mutation document spells the keyword: most queries are told apart without being parsed.
  if (text === undefined || !text.includes('mutation')) return undefined;
  let document: DocumentNode;
  try {
    document = parse(text, { noLocation: true, maxTokens: options.maxTokens });
  } catch {
    return undefined;
  }
  const operation = getOperationAST(document, operationName ?? undefined);
  if (operation?.operation !== OperationTypeNode.MUTATION) return undefined;
  return { documentText: text, operationName: operationName ?? null, variables: variables ?? {}, rootFields: rootFieldNames(document, operation) };
}
