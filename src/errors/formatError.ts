import { unwrapResolverError } from '@apollo/server/errors';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import type { Logger } from '../logger';
import { ErrorCode } from './codes';
import { fieldPathOf } from './fieldPath';
import { ScalarParseError } from './InputError';
import { UpstreamError } from './UpstreamError';
import { upstreamErrorCode, upstreamErrorField, upstreamErrorMessage, upstreamExtension } from './upstreamErrorCode';

/** Codes that are safe to show as they are: ours and Apollo's own. */
const KNOWN_CODES = new Set<string>([
  ...Object.values(ErrorCode).filter((c) => c !== ErrorCode.INTERNAL_SERVER_ERROR),
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_SUPPORTED',
  'OPERATION_RESOLUTION_FAILURE',
  'BAD_REQUEST',
]);

/**
 * Every error on its way to a client: upstream failures get the contract's code and `extensions.upstream`,
 * scalar input errors become BAD_USER_INPUT naming the field, and anything unexpected is masked as a generic
 * internal error and logged whole.
 */
export function createFormatError(logger: Logger) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const original = unwrapResolverError(error);
    const where = { ...(formatted.path ? { path: formatted.path } : {}), ...(formatted.locations ? { locations: formatted.locations } : {}) };

    if (original instanceof UpstreamError) {
      const upstream = upstreamExtension(original);
      const field = upstreamErrorField(original);
      return {
        message: upstreamErrorMessage(original),
        ...where,
        extensions: { code: upstreamErrorCode(original), ...(field ? { field } : {}), ...(upstream ? { upstream } : { service: original.service }) },
      };
    }
    if (error instanceof GraphQLError && causedByScalar(error)) {
      const field = fieldPathOf(error);
      return { message: formatted.message, ...where, extensions: { code: ErrorCode.BAD_USER_INPUT, ...(field ? { field } : {}) } };
    }
    const code = formatted.extensions?.code;
    if (typeof code === 'string' && KNOWN_CODES.has(code)) {
      const { stacktrace: _stacktrace, ...extensions } = formatted.extensions ?? {};
      // graphql-js's own variable coercion errors arrive as BAD_USER_INPUT without a field.
      const field = code === ErrorCode.BAD_USER_INPUT && extensions.field === undefined && error instanceof GraphQLError ? fieldPathOf(error) : undefined;
      return asLimitRefusal({ ...formatted, extensions: { ...extensions, ...(field ? { field } : {}) } });
    }
    logger.error({ err: original }, 'unexpected error');
    return { message: 'Internal server error', ...where, extensions: { code: ErrorCode.INTERNAL_SERVER_ERROR } };
  };
}

/** graphql-js and Apollo wrap a scalar's error once or twice on the way (coercion, then UserInputError). */
function causedByScalar(error: GraphQLError): boolean {
  let cause: unknown = error.originalError;
  for (let depth = 0; depth < 4 && cause; depth++) {
    if (cause instanceof ScalarParseError) return true;
    cause = typeof cause === 'object' && 'originalError' in cause ? cause.originalError : undefined;
  }
  return false;
}

/** graphql-js's parser refusing a document over its `maxLexicalTokens` (src/limits/documentLimits.ts). */
const TOKEN_LIMIT = /^Syntax Error: Document contains more th(?:at|an) (\d+) tokens\. Parsing aborted\.$/;
/** graphql-armor prefixes its validation refusals (depth, cost, aliases, directives) as if they were syntax errors. */
const ARMOR_PREFIX = 'Syntax Error: ';

/**
 * A refused limit, said as what it is (CONTRACT.md, "HTTP status of refusals"): `GRAPHQL_VALIDATION_FAILED`, not a
 * syntax error. Apollo has already chosen the HTTP status (400); only the body is rewritten.
 */
function asLimitRefusal(formatted: GraphQLFormattedError): GraphQLFormattedError {
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
