import type { ApolloServerPlugin } from '@apollo/server';
import { ApolloArmor } from '@escape.tech/graphql-armor';
import { GraphQLError, type ParseOptions, type ValidationRule } from 'graphql';
import type { QueryLimits } from '../config';

export interface DocumentLimitsOptions {
  limits: Pick<QueryLimits, 'maxDepth' | 'maxAliases' | 'maxTokens' | 'maxDirectives'>;
  /** Hide field suggestions ("Did you mean …"), as production does. */
  blockFieldSuggestion: boolean;
}

/**
 * The limits on a document: depth, aliases and directives as graphql-armor's validation rules (HTTP 400), and the
 * token limit as graphql-js's parse option `maxLexicalTokens` (ApolloServer's `parseOptions`): armor's own re-parses in
 * `parsingDidStart`, where any throw is an HTTP 500 to Apollo (src/errors/formatError.ts reports the limit).
 */
export function documentLimits({ limits, blockFieldSuggestion }: DocumentLimitsOptions): { parseOptions: ParseOptions; validationRules: ValidationRule[]; plugins: ApolloServerPlugin[] } {
  const armor = new ApolloArmor({
    maxDepth: { n: limits.maxDepth },
    // MAX_COST is judged with MAX_UPSTREAM_CALLS from the one estimate of the cost directives (src/limits/costLimit.ts).
    costLimit: { enabled: false },
    maxAliases: { n: limits.maxAliases },
    maxTokens: { enabled: false },
    maxDirectives: { n: limits.maxDirectives },
    blockFieldSuggestion: { enabled: blockFieldSuggestion },
  }).protect();
  return { parseOptions: { maxLexicalTokens: limits.maxTokens }, validationRules: armor.validationRules, plugins: armor.plugins };
}

/** Refuses `__schema` and `__type` (not `__typename`) naming the gateway's setting, where Apollo's rule names its option. */
export const introspectionOff: ValidationRule = (context) => ({
  Field(node) {
    if (node.name.value === '__schema' || node.name.value === '__type') {
      context.reportError(
        new GraphQLError('Introspection is off in production; the operator can turn it on with the setting INTROSPECTION=true', { nodes: [node] }),
      );
    }
  },
});
