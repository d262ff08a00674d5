import {
  getNamedType,
  isCompositeType,
  isInterfaceType,
  isObjectType,
  valueFromASTUntyped,
  type ConstDirectiveNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
} from 'graphql';
import { z } from 'zod';

/** What the estimator needs of one field, read once per schema from its `@cost` and `@listSize` directives. */
export interface FieldCost {
  /** The field's own `@cost` weight; undefined when it has none (the type's weight applies). */
  weight?: number;
  /** Weights of the arguments that carry `@cost`, added when the operation gives them. */
  argumentWeights: ReadonlyMap<string, number>;
  listSize?: ListSize;
}

export interface ListSize {
  assumedSize?: number;
  slicingArguments: readonly string[];
  sizedFields: readonly string[];
  requireOneSlicingArgument: boolean;
}

// The directives' arguments as the spec types them; checked here so that a typo in the SDL stops the start. That they
// match the SDL's declarations (the generated CostDirectiveArgs, ListSizeDirectiveArgs) is checked by the compiler in
// test/limits/costDirectives.test.ts: importing the generated types here would close an import cycle through context.ts.
export const CostArgs = z.object({ weight: z.string().regex(/^\d+(\.\d+)?$/, 'must be a non-negative number in a string, e.g. "10"') });
export const ListSizeArgs = z.object({
  assumedSize: z.number().int().min(0).nullish(),
  slicingArguments: z.array(z.string()).nullish(),
  sizedFields: z.array(z.string()).nullish(),
  requireOneSlicingArgument: z.boolean().nullish(),
});

/** The cost directives of one schema, read once: the estimator looks fields up by `Type.field`. */
export interface CostDirectives {
  field(parent: GraphQLNamedType, field: GraphQLField<unknown, unknown>): FieldCost;
  /** A type's weight: its `@cost`, else 1 for objects (and interfaces, unions), 0 for scalars and enums (the spec's defaults). */
  typeWeight(type: GraphQLNamedType): number;
}

const cache = new WeakMap<GraphQLSchema, CostDirectives>();

export function costDirectivesOf(schema: GraphQLSchema): CostDirectives {
  let directives = cache.get(schema);
  if (!directives) {
    directives = readCostDirectives(schema);
    cache.set(schema, directives);
  }
  return directives;
}

/** Reads every `@cost` and `@listSize` of the schema; throws naming each directive whose arguments are wrong. */
export function readCostDirectives(schema: GraphQLSchema): CostDirectives {
  // Keyed by the schema's own objects: the estimator looks up every selected field, so no key strings are built.
  const fields = new Map<GraphQLField<unknown, unknown>, FieldCost>();
  const types = new Map<GraphQLNamedType, number>();
  const problems: string[] = [];
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__')) continue;
    const typeCost = costOf(type.astNode?.directives, type.name, problems);
    types.set(type, typeCost ?? (isCompositeType(type) ? 1 : 0));
    if (!isObjectType(type) && !isInterfaceType(type)) continue;
    for (const field of Object.values(type.getFields())) {
      const where = `${type.name}.${field.name}`;
      const argumentWeights = new Map<string, number>();
      for (const arg of field.args) {
        const weight = costOf(arg.astNode?.directives, `${where}(${arg.name})`, problems);
        if (weight !== undefined) argumentWeights.set(arg.name, weight);
      }
      const listSize = listSizeOf(field.astNode?.directives, where, problems);
      fields.set(field, { weight: costOf(field.astNode?.directives, where, problems), argumentWeights, ...(listSize ? { listSize } : {}) });
    }
  }
  if (problems.length > 0) throw new Error(`Invalid cost directives in the schema:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  const none: FieldCost = { argumentWeights: new Map() };
  return {
    field: (_parent, field) => fields.get(field) ?? none,
    typeWeight: (type) => types.get(type) ?? (isCompositeType(getNamedType(type)) ? 1 : 0),
  };
}


function directiveArgs(node: ConstDirectiveNode): Record<string, unknown> {
  return Object.fromEntries((node.arguments ?? []).map((a) => [a.name.value, valueFromASTUntyped(a.value)]));
}

function costOf(directives: readonly ConstDirectiveNode[] | undefined, where: string, problems: string[]): number | undefined {
  const node = directives?.find((d) => d.name.value === 'cost');
  if (!node) return undefined;
  const parsed = CostArgs.safeParse(directiveArgs(node));
  if (!parsed.success) {
    problems.push(`${where} @cost: ${parsed.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`);
    return undefined;
  }
  return Number(parsed.data.weight);
}

function listSizeOf(directives: readonly ConstDirectiveNode[] | undefined, where: string, problems: string[]): ListSize | undefined {
  const node = directives?.find((d) => d.name.value === 'listSize');
  if (!node) return undefined;
  const parsed = ListSizeArgs.safeParse(directiveArgs(node));
  if (!parsed.success) {
    problems.push(`${where} @listSize: ${parsed.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`);
    return undefined;
  }
  const a = parsed.data;
  return {
    ...(a.assumedSize == null ? {} : { assumedSize: a.assumedSize }),
    slicingArguments: a.slicingArguments ?? [],
    sizedFields: a.sizedFields ?? [],
    requireOneSlicingArgument: a.requireOneSlicingArgument ?? true,
  };
}
