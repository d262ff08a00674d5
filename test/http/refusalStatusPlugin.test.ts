import { acceptsJsonOnly } from '../../src/http/refusalStatusPlugin';

describe('acceptsJsonOnly', () => {
  it.each([
    ['application/json', true],
    ['application/json; charset=utf-8', true],
    ['application/json, */*;q=0.5', true],
    ['application/graphql-response+json, application/json;q=0.9', false],
    ['application/json, application/graphql-response+json;q=0', true],
    ['*/*', false],
    [undefined, false],
    ['text/html', false],
  ])('reads %s as %s', (accept, expected) => {
    expect(acceptsJsonOnly(accept)).toBe(expected);
  });
});
