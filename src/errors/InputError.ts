import { GraphQLError } from 'graphql';
import { spellingsOf } from '../credentials';
import { ErrorCode } from './codes';

/** Input the gateway refuses before any upstream call; `field` is the input path, e.g. `input.amount`. */
export class InputError extends GraphQLError {
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message, { extensions: { code: ErrorCode.BAD_USER_INPUT, ...(field ? { field } : {}) } });
    this.name = 'InputError';
  }
}

/** A required credential header is missing: refused before any upstream call. */
export class MissingCredentialError extends GraphQLError {
  constructor(headers: readonly string[]) {
    super(`Missing credential header${headers.length > 1 ? 's' : ''}: ${headers.map(spellingsOf).join(', ')}`, {
      extensions: { code: ErrorCode.UNAUTHENTICATED, headers: [...headers] },
    });
    this.name = 'MissingCredentialError';
  }
}

/** Thrown by a scalar's parser; not a GraphQLError, so graphql-js attaches the value's location, from which formatError names the field. */
export class ScalarParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScalarParseError';
  }
}
