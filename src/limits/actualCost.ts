import {
  Kind,
  OperationTypeNode,
  getNamedType,
  getNullableType,
  isCompositeType,
  isListType,
  isObjectType,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { costDirectivesOf, type CostDirectives } from './costDirectives';

export interface ActualCostInput {
  schema: GraphQLSchema;
  document: DocumentNode;
  operation: OperationDefinitionNode;
  /** The response's `data`. */
  data: Readonly<Record<string, unknown>> | null | undefined;
}

interface Walk {
  schema: GraphQLSchema;
  directives: CostDirectives;
  fragments: ReadonlyMap<string, FragmentDefinitionNode>;
}

/**
 * The cost of what was actually returned, by the same weights as the estimate (src/limits/costEstimate.ts), with
 * the lists' real lengths instead of their sizes: what the client's operation turned out to cost, for the metrics.
 */
export function actualCost(input: ActualCostInput): number {
  const root = input.operation.operation === OperationTypeNode.MUTATION ? input.schema.getMutationType() : input.schema.getQueryType();
  if (!root || !input.data) return 0;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of input.document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  return selectionSetCost(input.operation.selectionSet, root, input.data, { schema: input.schema, directives: costDirectivesOf(input.schema), fragments });
}

function selectionSetCost(selectionSet: SelectionSetNode, parent: GraphQLCompositeType, value: Readonly<Record<string, unknown>>, walk: Walk): number {
  let cost = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind !== Kind.FIELD) {
      const fragment = selection.kind === Kind.FRAGMENT_SPREAD ? walk.fragments.get(selection.name.value) : selection;
      const condition = fragment?.typeCondition ? walk.schema.getType(fragment.typeCondition.name.value) : parent;
      // A fragment on another concrete type than the value's own did not apply to it.
      const typename = value.__typename;
      if (!fragment || !condition || !isCompositeType(condition)) continue;
      if (typeof typename === 'string' && isObjectType(condition) && condition.name !== typename) continue;
      cost += selectionSetCost(fragment.selectionSet, condition, value, walk);
      continue;
    }
    const key = selection.alias?.value ?? selection.name.value;
    if (selection.name.value.startsWith('__') || !(key in value) || !('getFields' in parent)) continue;
    const field = parent.getFields()[selection.name.value];
    if (!field) continue;
    const weight = walk.directives.field(parent, field).weight;
    const own = isListType(getNullableType(field.type)) ? (weight ?? 0) : (weight ?? walk.directives.typeWeight(getNamedType(field.type)));
    cost += own + elementsCost(field.type, value[key], selection.selectionSet, walk, !isListType(getNullableType(field.type)));
  }
  return cost;
}

/** What a field's value adds below the field itself: each list element its type's weight, each object its selection. */
function elementsCost(type: GraphQLOutputType, value: unknown, selectionSet: SelectionSetNode | undefined, walk: Walk, weighed: boolean): number {
  if (value === null || value === undefined) return 0;
  const nullable = getNullableType(type);
  if (isListType(nullable)) {
    if (!Array.isArray(value)) return 0;
    return value.reduce<number>((sum, element) => sum + elementsCost(nullable.ofType, element, selectionSet, walk, false), 0);
  }
  const named = getNamedType(nullable);
  const ownWeight = weighed ? 0 : walk.directives.typeWeight(named);
  if (!selectionSet || !isCompositeType(named) || typeof value !== 'object') return ownWeight;
  return ownWeight + selectionSetCost(selectionSet, named, value as Record<string, unknown>, walk);
}
