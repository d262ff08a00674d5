import { prefersHtml } from '../../../src/http/explorer/prefersHtml';

describe('prefersHtml', () => {
  it('is true for a browser navigation', () => {
    expect(prefersHtml('text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8')).toBe(true);
    expect(prefersHtml('text/html')).toBe(true);
  });

  it('is false for GraphQL clients, curl and requests without Accept', () => {
    expect(prefersHtml('application/json')).toBe(false);
    expect(prefersHtml('application/graphql-response+json, application/json;q=0.9')).toBe(false);
    expect(prefersHtml('*/*')).toBe(false);
    expect(prefersHtml(undefined)).toBe(false);
    expect(prefersHtml('')).toBe(false);
  });

  it('weighs text/html against JSON by q', () => {
    expect(prefersHtml('application/json, text/html;q=0.5')).toBe(false);
    expect(prefersHtml('text/html, application/json;q=0.5')).toBe(true);
    expect(prefersHtml('text/html;q=0')).toBe(false);
  });
});
