import { OperationTypeNode, getOperationAST, parse, type DocumentNode } from 'graphql';
import { rootFieldNames } from '../graphqlDocument';
import type { OperationRequest } from '../http/operationRequests';

/** The mutation a request would run, as much of it as idempotency needs. */
export interface SelectedMutation {
  documentText: string;
  operationName: string | null;
  variables: Readonly<Record<string, unknown>>;
  /** Names (not aliases) of the mutation fields it selects at its root, through fragments too. */
  rootFields: ReadonlySet<string>;
}

/**
 * The mutation an operation request selects, or undefined when it selects something else (a query), is not a
 * well-formed request (Apollo will refuse it, before any upstream call), or names a persisted query that was not
 * resolved to its text (Apollo answers PERSISTED_QUERY_NOT_FOUND; the client's retry carries the text).
 * `maxLexicalTokens` bounds the parse as Apollo's (MAX_TOKENS): a huge document costs no more here.
 */
export function selectedMutation(op: OperationRequest, maxLexicalTokens: number): SelectedMutation | undefined {
  const text = op.query;
  // A mutation document spells the keyword: most queries are told apart without being parsed.
  if (!op.wellFormed || text === undefined || !text.includes('mutation')) return undefined;
  let document: DocumentNode;
  try {
    document = parse(text, { noLocation: true, maxLexicalTokens });
  } catch {
    return undefined;
  }
  const operation = getOperationAST(document, op.operationName);
  if (operation?.operation !== OperationTypeNode.MUTATION) return undefined;
  return { documentText: text, operationName: op.operationName ?? null, variables: op.variables ?? {}, rootFields: rootFieldNames(document, operation) };
}
