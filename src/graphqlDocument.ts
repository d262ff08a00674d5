import { Kind, type DocumentNode, type OperationDefinitionNode } from 'graphql';

/**
 * The names (not aliases) of the fields an operation selects at its root, through inline fragments and fragment
 * spreads: which mutations a request runs (idempotency), whether it asks for introspection (client policies).
 */
export function rootFieldNames(document: DocumentNode, operation: OperationDefinitionNode): Set<string> {
  const fragments = new Map(document.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d] as const] : [])));
  const names = new Set<string>();
  const seen = new Set<string>();
  const walk = (selections: OperationDefinitionNode['selectionSet']['selections']): void => {
    for (const s of selections) {
      if (s.kind === Kind.FIELD) names.add(s.name.value);
      else if (s.kind === Kind.INLINE_FRAGMENT) walk(s.selectionSet.selections);
      else if (!seen.has(s.name.value)) {
        seen.add(s.name.value);
        const fragment = fragments.get(s.name.value);
        if (fragment) walk(fragment.selectionSet.selections);
      }
    }
  };
  walk(operation.selectionSet.selections);
  return names;
}
