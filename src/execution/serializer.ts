import {
  getNamedType,
  getNullableType,
  isAbstractType,
  isLeafType,
  isListType,
  isObjectType,
  Kind,
  OperationTypeNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';

/** Writes an operation's `data` as JSON: exactly the text `JSON.stringify(data)` gives. */
export type DataSerializer = (data: unknown) => string;

/**
 * A serialiser compiled from a query's selection (issue 14, item 1): one generated function per object selection
 * writes that object's response keys in the order execution creates them, each value by its field's type, so a
 * response is written without `JSON.stringify` discovering every object's shape again. graphql-jit's own
 * `stringify` (fast-json-stringify from the query) refuses custom scalars such as `DateTime`; here a custom scalar's
 * serialised value is written like any JSON value.
 *
 * The text is always what `JSON.stringify(data)` would write: a value of another shape than the selection's (an
 * object missing a key, a list that is not an array, a type the selection cannot foresee such as an interface's
 * implementation) is written by `JSON.stringify` from that point down. Operations whose set of keys depends on the
 * variables (`@skip`, `@include`), that ask for introspection or that alias a field `__proto__` get `undefined`: the
 * caller writes with `JSON.stringify`.
 */
export function compileSerializer(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): DataSerializer | undefined {
  const root = schema.getQueryType();
  if (operation.operation !== OperationTypeNode.QUERY || !root || hasConditionalSelection(document)) return undefined;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);

  const functions: string[] = [];
  const objectWriter = (type: GraphQLObjectType, selections: readonly SelectionSetNode[]): string | undefined => {
    const fields = collectFields(schema, fragments, type, selections);
    if (!fields) return undefined;
    const name = `o${functions.length}`;
    functions.push(''); // reserved: nested writers are numbered after this one
    const reads: string[] = [];
    const parts: string[] = [];
    let index = 0;
    for (const [key, field] of fields) {
      // graphql-jit writes each object as a literal, where a `__proto__` key sets the prototype instead of a key.
      if (key === '__proto__') return undefined;
      const fieldType = field.name === '__typename' ? undefined : type.getFields()[field.name]?.type;
      if (field.name !== '__typename' && !fieldType) return undefined; // introspection or an unknown field
      const value = `a${index++}`;
      reads.push(`const ${value} = v[${JSON.stringify(key)}]; if (${value} === undefined) return JSON.stringify(v);`);
      const write = fieldType ? valueWriter(fieldType, field.selections, value) : `leaf(${value})`;
      if (write === undefined) return undefined;
      parts.push(`${JSON.stringify(`${parts.length === 0 ? '{' : ','}${JSON.stringify(key)}:`)} + ${write}`);
    }
    functions[Number(name.slice(1))] = `function ${name}(v) {\n  ${reads.join('\n  ')}\n  return ${parts.length > 0 ? `${parts.join(' + ')} + '}'` : "'{}'"};\n}`;
    return name;
  };

  /** An expression writing `value` (a variable name, not undefined) of `type`. */
  const valueWriter = (type: GraphQLOutputType, selections: readonly SelectionSetNode[], value: string): string | undefined => {
    const nullable = getNullableType(type);
    if (isListType(nullable)) {
      const item = valueWriter(nullable.ofType, selections, 'e');
      if (item === undefined) return undefined;
      const name = `l${functions.length}`;
      functions.push(
        `function ${name}(x) {\n  if (!Array.isArray(x)) return JSON.stringify(x);\n  let s = '[';\n  for (let i = 0; i < x.length; i++) {\n    const e = x[i];\n    if (i > 0) s += ',';\n    s += e === null || e === undefined ? 'null' : ${item};\n  }\n  return s + ']';\n}`,
      );
      return `(${value} === null ? 'null' : ${name}(${value}))`;
    }
    if (isLeafType(nullable)) return `leaf(${value})`;
    if (isObjectType(nullable)) {
      const writer = objectWriter(nullable, selections);
      return writer === undefined ? undefined : `(${value} === null ? 'null' : typeof ${value} === 'object' ? ${writer}(${value}) : JSON.stringify(${value}))`;
    }
    return isAbstractType(getNamedType(nullable)) ? `JSON.stringify(${value})` : undefined;
  };

  const rootWriter = objectWriter(root, [operation.selectionSet]);
  if (rootWriter === undefined) return undefined;
  const source = `${functions.join('\n')}\nreturn (data) => (data !== null && typeof data === 'object' ? ${rootWriter}(data) : JSON.stringify(data));`;
  // The source holds the document's response keys only as JSON string literals, and no other text of the request.
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  const build = new Function('leaf', source) as (write: typeof leaf) => DataSerializer;
  return build(leaf);
}

/** Strings without a character JSON escapes (quote, backslash, controls, any surrogate) are written as they are. */
const PLAIN_STRING = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

/** A leaf value (a scalar's or enum's serialised value) as `JSON.stringify` writes it. */
function leaf(value: unknown): string {
  if (typeof value === 'string') return PLAIN_STRING.test(value) ? `"${value}"` : JSON.stringify(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (value === null) return 'null';
  return JSON.stringify(value);
}

interface CollectedField {
  name: string;
  selections: SelectionSetNode[];
}

/**
 * The response keys of `type`'s objects under these selections, in the order graphql-js and graphql-jit create
 * them (the first occurrence of each key, fragments expanded where their condition matches), each with the
 * selections merged under it; undefined for a spread of an unknown fragment.
 */
function collectFields(schema: GraphQLSchema, fragments: ReadonlyMap<string, FragmentDefinitionNode>, type: GraphQLObjectType, sets: readonly SelectionSetNode[]): Map<string, CollectedField> | undefined {
  const fields = new Map<string, CollectedField>();
  const visited = new Set<string>();
  const applies = (condition: string | undefined): boolean => {
    if (condition === undefined || condition === type.name) return true;
    const conditionType = schema.getType(condition);
    return conditionType !== undefined && isAbstractType(conditionType) && schema.isSubType(conditionType, type);
  };
  const walk = (set: SelectionSetNode): boolean => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        const key = selection.alias?.value ?? selection.name.value;
        let field = fields.get(key);
        if (!field) fields.set(key, (field = { name: selection.name.value, selections: [] }));
        if (selection.selectionSet) field.selections.push(selection.selectionSet);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        if (applies(selection.typeCondition?.name.value) && !walk(selection.selectionSet)) return false;
      } else {
        const name = selection.name.value;
        if (visited.has(name)) continue;
        visited.add(name);
        const fragment = fragments.get(name);
        if (!fragment) return false;
        if (applies(fragment.typeCondition.name.value) && !walk(fragment.selectionSet)) return false;
      }
    }
    return true;
  };
  for (const set of sets) if (!walk(set)) return undefined;
  return fields;
}

/** Whether any selection of the document carries `@skip` or `@include`, whose keys depend on the variables. */
function hasConditionalSelection(document: DocumentNode): boolean {
  const conditional = (node: { directives?: ReadonlyArray<{ name: { value: string } }> }) => node.directives?.some((d) => d.name.value === 'skip' || d.name.value === 'include') ?? false;
  const walk = (set: SelectionSetNode): boolean => set.selections.some((s) => conditional(s) || (s.kind !== Kind.FRAGMENT_SPREAD && s.selectionSet !== undefined && walk(s.selectionSet)));
  return document.definitions.some((d) => (d.kind === Kind.OPERATION_DEFINITION || d.kind === Kind.FRAGMENT_DEFINITION) && walk(d.selectionSet));
}
