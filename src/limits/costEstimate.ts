import {
  GraphQLError,
  Kind,
  OperationTypeNode,
  getNamedType,
  getNullableType,
  isAbstractType,
  isCompositeType,
  isListType,
  valueFromAST,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { costDirectivesOf, type CostDirectives, type ListSize } from './costDirectives';

/** An operation's estimate, before execution: an upper bound (the check loader's de-duplication can only lower it). */
export interface CostEstimate {
  /** The spec's cost: weights of what may be resolved, lists multiplied by their size. */
  cost: number;
  /** Upstream calls the operation may cause: resolutions of fields that carry `@cost` (the schema's convention). */
  upstreamCalls: number;
}

const NONE_SIZED: ReadonlyMap<string, number> = new Map();

/** A list field without `@listSize` (a check's items, say) is assumed to hold this many elements. */
export const DEFAULT_LIST_SIZE = 10;

export interface EstimateInput {
  schema: GraphQLSchema;
  document: DocumentNode;
  operation: OperationDefinitionNode;
  variables?: Record<string, unknown>;
}

interface Walk {
  schema: GraphQLSchema;
  directives: CostDirectives;
  fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  variables: Record<string, unknown>;
  /** The names of the variables the walk read (slicing arguments given as variables). */
  read: Set<string>;
}

/** Estimates an operation from the schema's `@cost` and `@listSize` directives (GraphQL Cost Directives spec). */
export function estimateCost(input: EstimateInput): CostEstimate {
  return walkCost(input, new Set());
}

/** The estimate, and in `read` the variables it depended on. */
function walkCost(input: EstimateInput, read: Set<string>): CostEstimate {
  const root = input.operation.operation === OperationTypeNode.MUTATION ? input.schema.getMutationType() : input.schema.getQueryType();
  if (!root) return { cost: 0, upstreamCalls: 0 };
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of input.document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const walk: Walk = {
    schema: input.schema,
    directives: costDirectivesOf(input.schema),
    fragments,
    variables: input.variables ?? {},
    read,
  };
  return selectionSetCost(input.operation.selectionSet, root, NONE_SIZED, walk);
}

/** Estimates kept per operation, keyed by the values of the variables the walk read (most operations read none). */
interface Remembered {
  schema: GraphQLSchema;
  /** The variables the walk reads: the same for every walk of the operation (below). */
  reads: string[];
  byValues: Map<string, CostEstimate>;
}

const remembered = new WeakMap<OperationDefinitionNode, Remembered>();
/** Distinct variable values remembered per operation before the memory starts over. */
const MAX_REMEMBERED = 256;

/**
 * `estimateCost`, walked once per operation and set of values of the variables it depends on. The walk reads a
 * variable wherever one is given as a slicing argument, whatever its value, so the variables it reads are fixed per
 * operation, and two requests that agree on them get the same estimate: a trusted or repeated document is walked
 * once, not per request.
 */
export function estimateRemembered(input: EstimateInput): CostEstimate {
  const variables = input.variables ?? {};
  const memory = remembered.get(input.operation);
  if (memory?.schema === input.schema) {
    const known = memory.byValues.get(keyOf(memory.reads, variables));
    if (known) return known;
  }
  const read = new Set<string>();
  const estimate = walkCost(input, read);
  const current = memory?.schema === input.schema ? memory : { schema: input.schema, reads: [...read], byValues: new Map<string, CostEstimate>() };
  remembered.set(input.operation, current);
  // Only small, plain values are remembered: a huge string would hold memory, and JSON cannot tell 1e400 from null.
  if (!current.reads.every((name) => rememberable(variables[name]))) return estimate;
  if (current.byValues.size >= MAX_REMEMBERED) current.byValues.clear();
  current.byValues.set(keyOf(current.reads, variables), estimate);
  return estimate;
}

/** A value whose JSON is short and names it exactly (so two values with the same key are the same value). */
function rememberable(value: unknown): boolean {
  if (value === undefined || value === null || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  return typeof value === 'string' && value.length <= 64;
}

/** The values of `reads` (an absent variable apart from a null one, as graphql-js tells them apart). */
function keyOf(reads: readonly string[], variables: Readonly<Record<string, unknown>>): string {
  return reads.length === 0 ? '' : JSON.stringify(reads.map((name) => (variables[name] === undefined ? [] : [variables[name]])));
}

/**
 * `sized`: the list sizes a parent's `@listSize(sizedFields:)` hands to fields of this selection (a page's `nodes`).
 * Fields under an abstract type's fragments are summed, an upper bound of the spec's maximum.
 */
function selectionSetCost(selectionSet: SelectionSetNode, parent: GraphQLCompositeType, sized: ReadonlyMap<string, number>, walk: Walk): CostEstimate {
  const total = { cost: 0, upstreamCalls: 0 };
  for (const selection of selectionSet.selections) {
    let part: CostEstimate;
    if (selection.kind === Kind.FIELD) {
      part = fieldCost(selection, parent, sized, walk);
    } else {
      const fragment = selection.kind === Kind.FRAGMENT_SPREAD ? walk.fragments.get(selection.name.value) : selection;
      if (!fragment) continue;
      const condition = fragment.typeCondition ? walk.schema.getType(fragment.typeCondition.name.value) : parent;
      if (!condition || !isCompositeType(condition)) continue;
      part = selectionSetCost(fragment.selectionSet, condition, sized, walk);
    }
    total.cost += part.cost;
    total.upstreamCalls += part.upstreamCalls;
  }
  return total;
}

function fieldCost(node: FieldNode, parent: GraphQLCompositeType, sized: ReadonlyMap<string, number>, walk: Walk): CostEstimate {
  // Introspection and __typename cost nothing; a union has no fields of its own.
  if (node.name.value.startsWith('__') || isAbstractType(parent) && !('getFields' in parent)) return { cost: 0, upstreamCalls: 0 };
  const field = 'getFields' in parent ? parent.getFields()[node.name.value] : undefined;
  if (!field) return { cost: 0, upstreamCalls: 0 };
  const directives = walk.directives.field(parent, field);
  const type = getNamedType(field.type);
  const typeWeight = walk.directives.typeWeight(type);
  let argumentCost = 0;
  for (const arg of node.arguments ?? []) argumentCost += directives.argumentWeights.get(arg.name.value) ?? 0;

  let childSized = NONE_SIZED;
  let ownSize: number | undefined;
  if (directives.listSize) {
    const size = sliceSize(directives.listSize, field, node, walk);
    if (directives.listSize.sizedFields.length > 0) childSized = new Map(directives.listSize.sizedFields.map((f) => [f, size]));
    else ownSize = size;
  }
  const children = node.selectionSet && isCompositeType(type) ? selectionSetCost(node.selectionSet, type, childSized, walk) : { cost: 0, upstreamCalls: 0 };
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
  for (const name of listSize.slicingArguments) {
    const def = field.args.find((a) => a.name === name);
    if (!def) continue;
    const given = node.arguments?.find((a) => a.name.value === name);
    if (given?.value.kind === Kind.VARIABLE) walk.read.add(given.value.name.value);
    const value = given ? valueFromAST(given.value, def.type, walk.variables) : def.defaultValue;
    if (typeof value === 'number') sizes.push(Math.max(0, value));
  }
  if (listSize.requireOneSlicingArgument && listSize.slicingArguments.length > 0 && sizes.length !== 1) {
    throw new GraphQLError(`Give exactly one of ${listSize.slicingArguments.join(', ')} to ${field.name}`, {
      nodes: [node],
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 400 } },
    });
  }
  if (sizes.length > 0) return Math.max(...sizes);
  return listSize.assumedSize ?? DEFAULT_LIST_SIZE;
}
