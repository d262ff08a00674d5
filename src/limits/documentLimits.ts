import type { ApolloServerPlugin } from '@apollo/server';
import { ApolloArmor } from '@escape.tech/graphql-armor';
import type { ParseOptions, ValidationRule } from 'graphql';
import type { QueryLimits } from '../config';

export interface DocumentLimitsOptions {
  limits: Pick<QueryLimits, 'maxDepth' | 'maxAliases' | 'maxTokens' | 'maxDirectives'>;
  /** Hide field suggestions ("Did you mean …"), as production does. */
  blockFieldSuggestion: boolean;
}

export interface DocumentLimits {
  /** For ApolloServer's `parseOptions`: the token limit, enforced by graphql-js's own parser (`maxLexicalTokens`). */
  parseOptions: ParseOptions;
  validationRules: ValidationRule[];
  plugins: ApolloServerPlugin[];
}

/**
 * The limits on a document: depth, aliases and directives as graphql-armor's validation rules (refusals are
 * validation errors, HTTP 400), and the token limit as graphql-js's `maxLexicalTokens` parse option.
 *
 * Why not armor's own token limit: its Apollo plugin parses the document a second time in `parsingDidStart`, where
 * any throw is an unexpected error to Apollo, so every syntax error and every token flood answered HTTP 500. In the
 * parser itself the refusal is an ordinary parse failure (HTTP 400), which formatError then reports as the limit it is
 * (see src/errors/formatError.ts).
 */
export function documentLimits({ limits, blockFieldSuggestion }: DocumentLimitsOptions): DocumentLimits {
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
