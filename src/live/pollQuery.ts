import { Kind, OperationTypeNode, type DocumentNode, type OperationDefinitionNode } from 'graphql';
import { callerHash } from '../credentials';
import { canonicalJson } from '../idempotency/idempotencyStep';
import { sha256Hex } from '../sha256';

/** The subscription's selection as a query operation over the same root field (Query.reservations): what a poll runs. */
export function asQuery(document: DocumentNode, subscription: OperationDefinitionNode): { document: DocumentNode; operation: OperationDefinitionNode } {
  const operation: OperationDefinitionNode = { ...subscription, operation: OperationTypeNode.QUERY };
  const definitions = document.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION);
  return { document: { kind: Kind.DOCUMENT, definitions: [operation, ...definitions] }, operation };
}

/**
 * The key of the subscribers that may share one read: the caller's credentials, the document (text and operation
 * name) and the variables (coerced, keys sorted). Hashes only: no credential is kept in a key or sent to Redis.
 */
export function pollKey(header: (lowerName: string) => string | undefined, text: string, operation: OperationDefinitionNode, variables: Record<string, unknown>): string {
  return sha256Hex(`${callerHash(header)}\n${sha256Hex(`${operation.name?.value ?? ''}\n${text}`)}\n${canonicalJson(variables)}`);
}
