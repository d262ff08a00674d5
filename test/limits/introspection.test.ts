import { buildSchema, parse, validate } from 'graphql';
import { introspectionOff } from '../../src/limits/documentLimits';

const schema = buildSchema('type Query { hello: String }');
const errorsOf = (query: string) => validate(schema, parse(query), [introspectionOff]).map((e) => e.message);

describe('introspectionOff', () => {
  it('refuses __schema and __type, naming the INTROSPECTION setting', () => {
    expect(errorsOf('{ __schema { queryType { name } } }')).toEqual([expect.stringContaining('INTROSPECTION=true')]);
    expect(errorsOf('{ __type(name: "Query") { name } }')).toEqual([expect.stringContaining('INTROSPECTION=true')]);
    expect(errorsOf('{ hello ... on Query { __schema { types { name } } } }')).toHaveLength(1);
  });

  it('lets __typename and ordinary fields through', () => {
    expect(errorsOf('{ __typename hello }')).toEqual([]);
  });
});
