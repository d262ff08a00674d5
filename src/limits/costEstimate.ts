import {
  GraphQLError,
  Kind,
  OperationTypeNode,
  getNamedType,
  getNullableType,
  isCompositeType,
  isListType,
  isObjectType,
  valueFromAST,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { costDirectivesOf, type ListSize } from './costDirectives';

/** An operation's estimate, before execution: an upper bound (the check loader's de-duplication can only lower it). */
export interface CostEstimate {
  /** The spec's cost: weights of what may be resolved, lists multiplied by their size. */
  cost: number;
  /** Upstream calls the operation may cause: resolutions of fields that carry `@cost` (the schema's convention). */
  upstreamCalls: number;
  /** Set when the operation asks `__schema` or `__type`. */
  introspection?: true;
}

/** A list field without `@listSize` (a check's items, say) is assumed to hold this many elements. */
export const DEFAULT_LIST_SIZE = 10;

/** A resolved operation as the cost model walks it. */
export interface ResolvedOperation {
  schema: GraphQLSchema;
  document: DocumentNode;
  operation: OperationDefinitionNode;
}

export interface EstimateInput extends ResolvedOperation {
  /** The variables as graphql-js coerced them (getVariableValues), defaults applied. */
  variables?: Readonly<Record<string, unknown>>;
}

interface Walk extends Weights {
  variables: Readonly<Record<string, unknown>>;
  /** The names of the variables the walk read (slicing arguments given as variables). */
  read: Set<string>;
  introspection: boolean;
}

const NONE_SIZED: ReadonlyMap<string, number> = new Map();
const NOTHING: CostEstimate = { cost: 0, upstreamCalls: 0 };

/** Per operation: the variables its walk reads (the same for every walk), and up to MAX_REMEMBERED estimates by their values. */
const remembered = new WeakMap<OperationDefinitionNode, { reads: string[]; byValues: Map<string, CostEstimate> }>();
const MAX_REMEMBERED = 256;

/**
 * Estimates an operation from the schema's `@cost` and `@listSize` directives (GraphQL Cost Directives spec), walked
 * once per operation and values of the variables the walk reads (its slicing arguments', whatever their values).
 */
export function estimateCost(input: EstimateInput): CostEstimate {
  const variables = input.variables ?? {};
  const memory = remembered.get(input.operation);
  // Coerced slicing values are Int or null, so their JSON names them exactly (absent apart from null).
  const key = (reads: readonly string[]) => JSON.stringify(reads.map((name) => (variables[name] === undefined ? [] : [variables[name]])));
  const known = memory?.byValues.get(key(memory.reads));
  if (known) return known;
  const walk: Walk = { ...walkOf(input), variables, read: new Set(), introspection: false };
  const estimate = walk.root ? selectionSetCost(input.operation.selectionSet, walk.root, NONE_SIZED, walk) : { ...NOTHING };
  if (walk.introspection) estimate.introspection = true;
  const current = memory ?? { reads: [...walk.read], byValues: new Map<string, CostEstimate>() };
  remembered.set(input.operation, current);
  if (current.byValues.size >= MAX_REMEMBERED) current.byValues.clear();
  current.byValues.set(key(current.reads), estimate);
  return estimate;
}

type Weights = ReturnType<typeof walkOf>;

/** What either walk reads: the schema's weights, the document's fragments, the operation's root type. */
function walkOf({ schema, document, operation }: ResolvedOperation) {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const root = operation.operation === OperationTypeNode.MUTATION ? schema.getMutationType() : schema.getQueryType();
  return { schema, directives: costDirectivesOf(schema), fragments, root };
}

/** `sized`: the list sizes a parent's `@listSize(sizedFields:)` hands down (a page's `nodes`); fragments are summed. */
function selectionSetCost(selectionSet: SelectionSetNode, parent: GraphQLCompositeType, sized: ReadonlyMap<string, number>, walk: Walk): CostEstimate {
  const total = { cost: 0, upstreamCalls: 0 };
  for (const selection of selectionSet.selections) {
    let part: CostEstimate;
    if (selection.kind === Kind.FIELD) {
      part = fieldCost(selection, parent, sized, walk);
    } else {
      const fragment = selection.kind === Kind.FRAGMENT_SPREAD ? walk.fragments.get(selection.name.value) : selection;
      const condition = fragment?.typeCondition ? walk.schema.getType(fragment.typeCondition.name.value) : parent;
      if (!fragment || !condition || !isCompositeType(condition)) continue;
      part = selectionSetCost(fragment.selectionSet, condition, sized, walk);
    }
    total.cost += part.cost;
    total.upstreamCalls += part.upstreamCalls;
  }
  return total;
}

function fieldCost(node: FieldNode, parent: GraphQLCompositeType, sized: ReadonlyMap<string, number>, walk: Walk): CostEstimate {
  // Introspection and __typename cost nothing; a union has no fields of its own.
  const name = node.name.value;
  if (name === '__schema' || name === '__type') walk.introspection = true;
  const field = !name.startsWith('__') && 'getFields' in parent ? parent.getFields()[name] : undefined;
  if (!field) return NOTHING;
  const directives = walk.directives.field(field);
  const type = getNamedType(field.type);
  const typeWeight = walk.directives.typeWeight(type);
  let argumentCost = 0;
  for (const arg of node.arguments ?? []) argumentCost += directives.argumentWeights.get(arg.name.value) ?? 0;

  let childSized = NONE_SIZED;
  let ownSize: number | undefined;
  if (directives.listSize) {
    const size = sliceSize(directives.listSize, field, node, walk);
    const sizedFields = directives.listSize.sizedFields ?? [];
    if (sizedFields.length > 0) childSized = new Map(sizedFields.map((f) => [f, size]));
    else ownSize = size;
  }
  const children = node.selectionSet && isCompositeType(type) ? selectionSetCost(node.selectionSet, type, childSized, walk) : NOTHING;
  const ownCall = directives.weight === undefined ? 0 : 1;
  if (isListType(getNullableType(field.type))) {
    // The field resolves once (its own weight, its own upstream call); each element weighs its type plus its selection.
    const size = sized.get(field.name) ?? ownSize ?? DEFAULT_LIST_SIZE;
    return {
      cost: (directives.weight ?? 0) + argumentCost + size * (typeWeight + children.cost),
      upstreamCalls: ownCall + size * children.upstreamCalls,
    };
  }
  return { cost: (directives.weight ?? typeWeight) + argumentCost + children.cost, upstreamCalls: ownCall + children.upstreamCalls };
}

/** The size a `@listSize` gives: the largest slicing argument given (or defaulted), else `assumedSize`, else the default. */
function sliceSize(listSize: ListSize, field: GraphQLField<unknown, unknown>, node: FieldNode, walk: Walk): number {
  const sizes: number[] = [];
  const slicing = listSize.slicingArguments ?? [];
  for (const name of slicing) {
    const def = field.args.find((a) => a.name === name);
    if (!def) continue;
    const given = node.arguments?.find((a) => a.name.value === name);
    if (given?.value.kind === Kind.VARIABLE) walk.read.add(given.value.name.value);
    // As graphql-js executes it: an absent variable leaves the argument to its default.
    const absent = !given || (given.value.kind === Kind.VARIABLE && walk.variables[given.value.name.value] === undefined);
    const value = absent ? def.defaultValue : valueFromAST(given.value, def.type, walk.variables);
    if (typeof value === 'number') sizes.push(Math.max(0, value));
  }
  if ((listSize.requireOneSlicingArgument ?? true) && slicing.length > 0 && sizes.length !== 1) {
    throw new GraphQLError(`Give exactly one of ${slicing.join(', ')} to ${field.name}`, {
      nodes: [node],
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 400 } },
    });
  }
  if (sizes.length > 0) return Math.max(...sizes);
  return listSize.assumedSize ?? DEFAULT_LIST_SIZE;
}

/** The cost of what was actually returned, by the estimate's weights with the lists' real lengths. */
export function actualCost(input: ResolvedOperation & { data: Readonly<Record<string, unknown>> | null | undefined }): number {
  const walk = walkOf(input);
  if (!walk.root || !input.data) return 0;
  return returnedCost(input.operation.selectionSet, walk.root, input.data, walk);
}

function returnedCost(selectionSet: SelectionSetNode, parent: GraphQLCompositeType, value: Readonly<Record<string, unknown>>, walk: Weights): number {
  let cost = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind !== Kind.FIELD) {
      const fragment = selection.kind === Kind.FRAGMENT_SPREAD ? walk.fragments.get(selection.name.value) : selection;
      const condition = fragment?.typeCondition ? walk.schema.getType(fragment.typeCondition.name.value) : parent;
      // A fragment on another concrete type than the value's own did not apply to it.
      const typename = value.__typename;
      if (!fragment || !condition || !isCompositeType(condition)) continue;
      if (typeof typename === 'string' && isObjectType(condition) && condition.name !== typename) continue;
      cost += returnedCost(fragment.selectionSet, condition, value, walk);
      continue;
    }
    const key = selection.alias?.value ?? selection.name.value;
    if (selection.name.value.startsWith('__') || !(key in value) || !('getFields' in parent)) continue;
    const field = parent.getFields()[selection.name.value];
    if (!field) continue;
    const weight = walk.directives.field(field).weight;
    const list = isListType(getNullableType(field.type));
    const own = list ? (weight ?? 0) : (weight ?? walk.directives.typeWeight(getNamedType(field.type)));
    cost += own + elementsCost(field.type, value[key], selection.selectionSet, walk, !list);
  }
  return cost;
}

/** What a field's value adds below the field itself: each list element its type's weight, each object its selection. */
function elementsCost(type: GraphQLOutputType, value: unknown, selectionSet: SelectionSetNode | undefined, walk: Weights, weighed: boolean): number {
  if (value === null || value === undefined) return 0;
  const nullable = getNullableType(type);
  if (isListType(nullable)) {
    if (!Array.isArray(value)) return 0;
    return value.reduce<number>((sum, element) => sum + elementsCost(nullable.ofType, element, selectionSet, walk, false), 0);
  }
  const named = getNamedType(nullable);
  const ownWeight = weighed ? 0 : walk.directives.typeWeight(named);
  if (!selectionSet || !isCompositeType(named) || typeof value !== 'object') return ownWeight;
  return ownWeight + returnedCost(selectionSet, named, value as Record<string, unknown>, walk);
}
