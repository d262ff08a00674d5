import type { GraphQLFormattedError } from 'graphql';

/** graphql-js's parser refusing a document over its `maxLexicalTokens` (src/limits/documentLimits.ts). */
const TOKEN_LIMIT = /^Syntax Error: Document contains more th(?:at|an) (\d+) tokens\. Parsing aborted\.$/;
/** graphql-armor prefixes its validation refusals (depth, cost, aliases, directives) as if they were syntax errors. */
const ARMOR_PREFIX = 'Syntax Error: ';

/**
 * A refused limit, said as what it is (CONTRACT.md, "HTTP status of refusals"): `GRAPHQL_VALIDATION_FAILED` with a
 * message that names the limit and does not pretend to be a syntax error. A genuine syntax error stays
 * `GRAPHQL_PARSE_FAILED`. Apollo has already chosen the HTTP status (400) from the error itself; only the body is
 * rewritten. Anything else is returned as it came.
 */
export function asLimitRefusal(formatted: GraphQLFormattedError): GraphQLFormattedError {
  const code = formatted.extensions?.code;
  if (code === 'GRAPHQL_PARSE_FAILED') {
    const tokens = TOKEN_LIMIT.exec(formatted.message);
    if (!tokens) return formatted;
    return { ...formatted, message: `Token limit of ${tokens[1]} exceeded.`, extensions: { ...formatted.extensions, code: 'GRAPHQL_VALIDATION_FAILED' } };
  }
  if (code === 'GRAPHQL_VALIDATION_FAILED' && formatted.message.startsWith(ARMOR_PREFIX)) {
    return { ...formatted, message: formatted.message.slice(ARMOR_PREFIX.length) };
  }
  return formatted;
}
