import { serverAudits } from 'graphql-http';
import { startStack, type Stack } from '../support/stack';

/**
 * The GraphQL-over-HTTP spec's own audit suite (graphql-http) against the running gateway: every MUST and every
 * SHOULD holds. The audits send no credentials, so they exercise the HTTP layer and the refusals, never an upstream.
 */
describe('GraphQL over HTTP', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack.close());

  const audits = serverAudits({ url: () => `${stack.url}/graphql` });
  for (const audit of audits.filter((a) => !a.name.startsWith('MAY'))) {
    it(`passes ${audit.id}: ${audit.name}`, async () => {
      const result = await audit.fn();
      expect(result.status === 'ok' ? 'ok' : `${result.status}: ${result.reason}`).toBe('ok');
    });
  }
});
