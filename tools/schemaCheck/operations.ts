import {
  Kind,
  Source,
  TypeInfo,
  getNamedType,
  isInputObjectType,
  parse,
  visit,
  visitWithTypeInfo,
  type DefinitionNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLNamedType,
  type GraphQLSchema,
} from 'graphql';
import type { SourceFile } from './sources';

/** An operation some client sends: from operations/ or from a manifest a shipped app pinned. */
export interface ClientOperation {
  name: string;
  /** Where a person finds it: the operation's file, or the manifest that lists it. */
  where: string;
  /** The operation with every fragment it uses. */
  document: DocumentNode;
}

/** The operations of operations/*.graphql, each with the fragments it spreads (which may live in other files). */
export function operationsFromFiles(files: readonly SourceFile[]): { operations: ClientOperation[]; problems: string[] } {
  const problems: string[] = [];
  const definitions: Array<{ definition: DefinitionNode; path: string }> = [];
  for (const file of files) {
    try {
      for (const definition of parse(new Source(file.text, file.path)).definitions) definitions.push({ definition, path: file.path });
    } catch (err) {
      problems.push(`${file.path} does not parse: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const { definition } of definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  const operations: ClientOperation[] = [];
  for (const { definition, path } of definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    const used = fragmentsUsed(definition, fragments);
    operations.push({ name: definition.name?.value ?? '(anonymous)', where: path, document: { kind: Kind.DOCUMENT, definitions: [definition, ...used] } });
  }
  return { operations, problems };
}

/** The operations listed in manifests (Apollo's persisted query manifest format). */
export function operationsFromManifests(files: readonly SourceFile[]): { operations: ClientOperation[]; problems: string[] } {
  const problems: string[] = [];
  const operations: ClientOperation[] = [];
  for (const file of files) {
    const manifest = JSON.parse(file.text) as { operations?: Array<{ name?: string; body?: string }> };
    for (const op of manifest.operations ?? []) {
      const name = op.name ?? '(unnamed)';
      try {
        operations.push({ name, where: file.path, document: parse(new Source(op.body ?? '', `${file.path} (${name})`)) });
      } catch (err) {
        problems.push(`operation ${name} in ${file.path} does not parse: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }
  return { operations, problems };
}

/**
 * The schema coordinates an operation touches (`Type`, `Type.field`, `Type.field.argument`, and every field of the
 * input types its variables take), read against `schema`. A change at one of them may break the operation.
 */
export function coordinatesUsed(document: DocumentNode, schema: GraphQLSchema): Set<string> {
  const used = new Set<string>();
  const typeInfo = new TypeInfo(schema);
  const addInput = (type: GraphQLNamedType | undefined) => {
    if (!type || used.has(type.name)) return;
    used.add(type.name);
    if (!isInputObjectType(type)) return;
    for (const field of Object.values(type.getFields())) {
      used.add(`${type.name}.${field.name}`);
      addInput(getNamedType(field.type));
    }
  };
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field(node) {
        const parent = typeInfo.getParentType();
        if (!parent) return;
        used.add(parent.name);
        used.add(`${parent.name}.${node.name.value}`);
        for (const arg of node.arguments ?? []) used.add(`${parent.name}.${node.name.value}.${arg.name.value}`);
      },
      VariableDefinition() {
        const type = typeInfo.getInputType();
        addInput(type ? getNamedType(type) : undefined);
      },
    }),
  );
  return used;
}

function fragmentsUsed(node: DefinitionNode, fragments: ReadonlyMap<string, FragmentDefinitionNode>, seen = new Set<string>()): FragmentDefinitionNode[] {
  visit(node, {
    FragmentSpread(spread) {
      const fragment = fragments.get(spread.name.value);
      if (!fragment || seen.has(spread.name.value)) return;
      seen.add(spread.name.value);
      fragmentsUsed(fragment, fragments, seen);
    },
  });
  return [...seen].map((name) => fragments.get(name)!);
}
