import {
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
  /** The `@listSize` arguments as given (the spec's defaults apply where they are null). */
  listSize?: ListSize;
}

export type ListSize = z.infer<typeof ListSizeArgs>;

// Checked here so that a typo in the SDL stops the start; that they match the SDL's declarations is checked by the
// compiler in test/limits/costDirectives.test.ts (importing the generated types here would close an import cycle).
export const CostArgs = z.object({ weight: z.string().regex(/^\d+(\.\d+)?$/, 'must be a non-negative number in a string, e.g. "10"') });
export const ListSizeArgs = z.object({
  assumedSize: z.number().int().min(0).nullish(),
  slicingArguments: z.array(z.string()).nullish(),
  sizedFields: z.array(z.string()).nullish(),
  requireOneSlicingArgument: z.boolean().nullish(),
});

/** The cost directives of one schema, by the schema's own field and type objects. */
export interface CostDirectives {
  field(field: GraphQLField<unknown, unknown>): FieldCost;
  /** A type's weight: its `@cost`, else 1 for objects (and interfaces, unions), 0 for scalars and enums (the spec's defaults). */
  typeWeight(type: GraphQLNamedType): number;
}

const cache = new WeakMap<GraphQLSchema, CostDirectives>();

/** Every `@cost` and `@listSize` of the schema, read once; throws naming each directive whose arguments are wrong. */
export function costDirectivesOf(schema: GraphQLSchema): CostDirectives {
  const cached = cache.get(schema);
  if (cached) return cached;
  const fields = new Map<GraphQLField<unknown, unknown>, FieldCost>();
  const types = new Map<GraphQLNamedType, number>();
  const problems: string[] = [];
  const costOf = (directives: readonly ConstDirectiveNode[] | undefined, where: string) => {
    const weight = read(directives, 'cost', CostArgs, where, problems)?.weight;
    return weight === undefined ? undefined : Number(weight);
  };
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__')) continue;
    types.set(type, costOf(type.astNode?.directives, type.name) ?? (isCompositeType(type) ? 1 : 0));
    if (!isObjectType(type) && !isInterfaceType(type)) continue;
    for (const field of Object.values(type.getFields())) {
      const where = `${type.name}.${field.name}`;
      const argumentWeights = new Map<string, number>();
      for (const arg of field.args) {
        const weight = costOf(arg.astNode?.directives, `${where}(${arg.name})`);
        if (weight !== undefined) argumentWeights.set(arg.name, weight);
      }
      const listSize = read(field.astNode?.directives, 'listSize', ListSizeArgs, where, problems);
      fields.set(field, { weight: costOf(field.astNode?.directives, where), argumentWeights, ...(listSize ? { listSize } : {}) });
    }
  }
  if (problems.length > 0) throw new Error(`Invalid cost directives in the schema:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  const none: FieldCost = { argumentWeights: new Map() };
  const directives: CostDirectives = {
    field: (field) => fields.get(field) ?? none,
    typeWeight: (type) => types.get(type) ?? (isCompositeType(type) ? 1 : 0),
  };
  cache.set(schema, directives);
  return directives;
}

/** The arguments of the directive `name` among `directives`, checked by `schema`; a problem is noted naming `where`. */
function read<T>(directives: readonly ConstDirectiveNode[] | undefined, name: string, schema: z.ZodType<T>, where: string, problems: string[]): T | undefined {
  const node = directives?.find((d) => d.name.value === name);
  if (!node) return undefined;
  const parsed = schema.safeParse(Object.fromEntries((node.arguments ?? []).map((a) => [a.name.value, valueFromASTUntyped(a.value)])));
  if (parsed.success) return parsed.data;
  problems.push(`${where} @${name}: ${parsed.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`);
  return undefined;
}
