import { buildSchema, execute, GraphQLScalarType, Kind, parse, type DocumentNode, type OperationDefinitionNode } from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import { compileSerializer, type DataSerializer } from '../../src/execution/serializer';

/**
 * The serialiser compiled from a selection (src/execution/serializer.ts) writes exactly what `JSON.stringify`
 * writes, for results made by graphql-js and by graphql-jit from the same root value, and refuses what it cannot
 * foresee. (test/execution/compiledPath.test.ts compares the gateway's bodies byte for byte with Apollo's.)
 */
const schema = buildSchema(`
  scalar JSON
  enum Colour { RED GREEN }
  interface Named { name: String }
  type Person implements Named { name: String, age: Int }
  type Pet implements Named { name: String, legs: Int }
  union Thing = Person | Pet
  type Item { id: ID!, label: String, price: Float, tags: [String], grid: [[Int]], extra: JSON, colour: Colour, open: Boolean, child: Item }
  type Query { item: Item, items: [Item!], named: [Named], things: [Thing], count: Int }
`);
const json = schema.getType('JSON') as GraphQLScalarType;
json.serialize = (value: unknown) => value;

const serializerOf = (text: string): { document: DocumentNode; serialize: DataSerializer | undefined } => {
  const document = parse(text);
  return { document, serialize: compileSerializer(schema, document, document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!) };
};

const ROOT = {
  count: 3,
  item: { id: 'a"1', label: 'line\nbreak \u2028 é 😀', price: 12.5, tags: ['x', null, 'z\\'], grid: [[1, 2], [], null, [3]], extra: { nested: [1, 'two', { three: true }], at: '2026-11-23T19:00:00Z' }, colour: 'RED', open: false, child: { id: 'c', label: null, child: null } },
  items: [
    { id: '1', label: 'one', price: 7, tags: [], open: true, colour: 'GREEN' },
    { id: '2', label: 'lone \ud800 surrogate', price: -0, tags: null, extra: 'plain', colour: null },
  ],
  named: [{ __typename: 'Person', name: 'Ana', age: 40 }, { __typename: 'Pet', name: 'Rex', legs: 4 }, null],
  things: [{ __typename: 'Pet', name: 'Tom', legs: 4 }],
};

const QUERIES = {
  everyKind: `query Every { count item { id label price tags grid extra colour open child { id label child { id } } } items { id label price tags extra colour open } }`,
  aliasesAndFragments: `query Frag { first: item { ...ItemBits id label first: id } items { ... on Item { price id } ...ItemBits } }
    fragment ItemBits on Item { label open id }`,
  abstractTypes: `{ named { __typename name ... on Person { age } ... on Pet { legs } } things { ... on Pet { name legs } } }`,
  typename: `{ __typename item { __typename id } }`,
};

describe('the compiled serialiser', () => {
  it.each(Object.entries(QUERIES))('writes %s exactly as JSON.stringify does, for graphql-js and graphql-jit results', async (_name, text) => {
    const { document, serialize } = serializerOf(text);
    expect(serialize).toBeDefined();
    const byJs = await execute({ schema, document, rootValue: ROOT });
    expect(byJs.errors).toBeUndefined();
    expect(serialize!(byJs.data)).toBe(JSON.stringify(byJs.data));
    const compiled = compileQuery(schema, document);
    if (!isCompiledQuery(compiled)) throw new Error('not compiled');
    const byJit = await compiled.query(ROOT, {}, {});
    expect(serialize!(byJit.data)).toBe(JSON.stringify(byJit.data));
    expect(serialize!(byJit.data)).toBe(JSON.stringify(byJs.data));
  });

  it('escapes what JSON escapes and writes numbers JSON cannot hold as null', () => {
    const { serialize } = serializerOf('{ items { id label price } }');
    const data = { items: [{ id: '"\\\u0000\u001f', label: '\udc00\ud83d\ude00\ud83d', price: Number.POSITIVE_INFINITY }] };
    expect(serialize!(data)).toBe(JSON.stringify(data));
    expect(serialize!(data)).toContain('"price":null');
  });

  it('falls back to JSON.stringify from where a value has another shape than the selection', () => {
    const { serialize } = serializerOf('{ count item { id label tags } }');
    const shapes = [
      { count: 1, item: { id: 'no label' } }, // a key missing
      { count: 1, item: { id: 'x', label: 'y', tags: 'not a list' } },
      { count: 1, item: 'not an object' },
      { count: 1, item: { id: 'x', label: undefined, tags: [] } },
      null,
      [],
    ];
    for (const data of shapes) expect(serialize!(data)).toBe(JSON.stringify(data));
  });

  it('refuses selections whose keys depend on the variables, introspection, unknown fragments and a __proto__ alias', () => {
    expect(serializerOf('query ($on: Boolean!) { item { id label @include(if: $on) } }').serialize).toBeUndefined();
    expect(serializerOf('query ($on: Boolean!) { item { id ...F @skip(if: $on) } } fragment F on Item { label }').serialize).toBeUndefined();
    expect(serializerOf('{ __schema { queryType { name } } }').serialize).toBeUndefined();
    expect(serializerOf('{ item { ...Missing } }').serialize).toBeUndefined();
    expect(serializerOf('mutation { count }').serialize).toBeUndefined();
    expect(serializerOf('{ item { __proto__: id } }').serialize).toBeUndefined();
  });

  it('writes the response keys in execution order, fragments merged at their first occurrence', async () => {
    const { document, serialize } = serializerOf(QUERIES.aliasesAndFragments);
    const { data } = await execute({ schema, document, rootValue: ROOT });
    const written = serialize!(data);
    expect(Object.keys((JSON.parse(written) as { first: object }).first)).toEqual(['label', 'open', 'id', 'first']);
    expect(written).toBe(JSON.stringify(data));
  });
});
