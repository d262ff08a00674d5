import { Writable } from 'node:stream';
import { GraphQLError, buildSchema, graphql, type GraphQLFormattedError } from 'graphql';
import pino from 'pino';
import { UpstreamError } from '../../src/errors/UpstreamError';
import { ErrorCode } from '../../src/errors/codes';
import { createFormatError } from '../../src/errors/formatError';

/** A pino logger whose JSON lines land in `lines`. */
function memoryLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: 'info' }, destination), lines };
}

/** A resolver error as graphql-js hands it over: a GraphQLError with a path, wrapping what the resolver threw. */
function resolverError(original: Error, path: Array<string | number> = ['check']): GraphQLError {
  return new GraphQLError(original.message, { path, originalError: original });
}

/** What Apollo formats before calling formatError: the message, the path, and (outside production) a stacktrace. */
function formattedOf(error: GraphQLError, code = 'INTERNAL_SERVER_ERROR'): GraphQLFormattedError {
  return { ...error.toJSON(), extensions: { code, stacktrace: (error.originalError?.stack ?? '').split('\n') } };
}

describe('createFormatError', () => {
  describe('an unexpected error', () => {
    const secret = 'db password is hunter2 at /srv/x.js:1';

    it('is masked as an internal server error without a stacktrace', () => {
      const { logger } = memoryLogger();
      const error = resolverError(new Error(secret));
      const result = createFormatError(logger)(formattedOf(error), error);
      expect(result).toEqual({ message: 'Internal server error', path: ['check'], extensions: { code: ErrorCode.INTERNAL_SERVER_ERROR } });
      expect(JSON.stringify(result)).not.toContain('hunter2');
    });

    it('is logged whole, with its message and stack', () => {
      const { logger, lines } = memoryLogger();
      const original = new Error(secret);
      const error = resolverError(original);
      createFormatError(logger)(formattedOf(error), error);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ level: 50, msg: 'unexpected error', err: { type: 'Error', message: secret, stack: original.stack } });
    });

    it('masks an error that carries a code of its own that the contract does not know', () => {
      const { logger, lines } = memoryLogger();
      const original = Object.assign(new Error('ECONNREFUSED 10.0.0.5:5432'), { code: 'ECONNREFUSED' });
      const error = new GraphQLError(original.message, { path: ['employees'], originalError: original, extensions: { code: 'ECONNREFUSED' } });
      const result = createFormatError(logger)(formattedOf(error, 'ECONNREFUSED'), error);
      expect(result.message).toBe('Internal server error');
      expect(result.extensions).toEqual({ code: ErrorCode.INTERNAL_SERVER_ERROR });
      expect(lines).toHaveLength(1);
    });

    it('masks a thrown value that is not an Error', () => {
      const { logger } = memoryLogger();
      const result = createFormatError(logger)({ message: 'Unexpected error value: "boom"' }, 'boom');
      expect(result).toEqual({ message: 'Internal server error', extensions: { code: ErrorCode.INTERNAL_SERVER_ERROR } });
    });
  });

  describe('an upstream error', () => {
    it('gets the contract code and the upstream extension', () => {
      const { logger, lines } = memoryLogger();
      const error = resolverError(new UpstreamError('reservation', 'status', { status: 422, upstreamCode: 822, upstreamMessage: 'Amount is invalid', inputField: 'input.amount' }), [
        'updatePaymentRequest',
      ]);
      const result = createFormatError(logger)(formattedOf(error), error);
      expect(result).toEqual({
        message: 'The reservation service refused the request (HTTP 422): Amount is invalid.',
        path: ['updatePaymentRequest'],
        extensions: {
          code: ErrorCode.BAD_USER_INPUT,
          field: 'input.amount',
          upstream: { service: 'reservation', status: 422, code: 822, reason: 'amount_is_invalid' },
        },
      });
      expect(lines).toHaveLength(0);
    });

    it('names the service without an upstream extension when there was no answer', () => {
      const { logger } = memoryLogger();
      const cause = new Error('connect ECONNREFUSED 127.0.0.1:4010');
      const error = resolverError(new UpstreamError('pos', 'unavailable', { detail: 'the connection failed', connectionFailed: true, cause }));
      const result = createFormatError(logger)(formattedOf(error), error);
      expect(result).toEqual({
        message: 'The POS service is unavailable (the connection failed).',
        path: ['check'],
        extensions: { code: ErrorCode.UPSTREAM_UNAVAILABLE, service: 'pos' },
      });
      expect(JSON.stringify(result)).not.toContain('127.0.0.1');
    });

    it.each([
      { what: 'a timeout', details: ['timeout', {}] as const, code: ErrorCode.UPSTREAM_TIMEOUT },
      { what: 'a bad response', details: ['bad_response', { status: 200, detail: 'field alias: expected string' }] as const, code: ErrorCode.UPSTREAM_BAD_RESPONSE },
      { what: 'a 500', details: ['status', { status: 500 }] as const, code: ErrorCode.UPSTREAM_ERROR },
      { what: 'a 404', details: ['status', { status: 404 }] as const, code: ErrorCode.NOT_FOUND },
    ])('maps $what to $code', ({ details: [failure, details], code }) => {
      const { logger } = memoryLogger();
      const error = resolverError(new UpstreamError('pos', failure, details));
      expect(createFormatError(logger)(formattedOf(error), error).extensions?.code).toBe(code);
    });
  });

  describe('a variable coercion error of graphql-js', () => {
    const schema = buildSchema(`
      input In { id: ID!, amount: Int, customer: Customer }
      input Customer { email: String! }
      type Query { pay(input: In!): Int, employees(page: Int): Int }
    `);

    /** The first error graphql-js gives for the operation, formatted as Apollo hands it over (BAD_USER_INPUT). */
    async function coercionError(source: string, variableValues: Record<string, unknown>): Promise<[GraphQLFormattedError, GraphQLError]> {
      const { errors } = await graphql({ schema, source, variableValues });
      const error = errors![0];
      return [{ ...error.toJSON(), extensions: { code: 'BAD_USER_INPUT' } }, error];
    }

    it.each([
      ['a wrong type', 'query($i: In!) { pay(input: $i) }', { i: { id: '1', amount: 'abc' } }, 'input.amount'],
      ['a missing required field', 'query($i: In!) { pay(input: $i) }', { i: { amount: 1 } }, 'input.id'],
      ['a missing required nested field', 'query($i: In!) { pay(input: $i) }', { i: { id: '1', customer: {} } }, 'input.customer.email'],
      ['an undefined field', 'query($i: In!) { pay(input: $i) }', { i: { id: '1', amout: 1 } }, 'input.amout'],
      ['a missing required variable', 'query($i: In!) { pay(input: $i) }', {}, 'input'],
      ['a fraction for an Int', 'query($p: Int) { employees(page: $p) }', { p: 1.5 }, 'page'],
    ])('gets extensions.field for %s: %s', async (_what, source, variables, field) => {
      const { logger } = memoryLogger();
      const [formatted, error] = await coercionError(source, variables);
      expect(createFormatError(logger)(formatted, error)).toMatchObject({ message: formatted.message, extensions: { code: 'BAD_USER_INPUT', field } });
    });

    it('falls back on the variable path when the operation cannot be read', () => {
      const { logger } = memoryLogger();
      const error = new GraphQLError('Variable "$i" got invalid value "abc" at "i.expirationTime"; Int cannot represent non-integer value: "abc"');
      const result = createFormatError(logger)({ message: error.message, extensions: { code: 'BAD_USER_INPUT' } }, error);
      expect(result.extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'i.expirationTime' });
    });

    it('keeps a field the error already names', () => {
      const { logger } = memoryLogger();
      const error = new GraphQLError('Variable "$i" got invalid value 1; boom', { extensions: { code: 'BAD_USER_INPUT', field: 'input.amount' } });
      const result = createFormatError(logger)({ message: error.message, extensions: { code: 'BAD_USER_INPUT', field: 'input.amount' } }, error);
      expect(result.extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'input.amount' });
    });
  });

  describe('an error with a known code', () => {
    it.each(['GRAPHQL_VALIDATION_FAILED', 'GRAPHQL_PARSE_FAILED', 'BAD_USER_INPUT', 'PERSISTED_QUERY_NOT_FOUND'])('passes %s through without its stacktrace', (code) => {
      const { logger, lines } = memoryLogger();
      const error = new GraphQLError('Cannot query field "chek" on type "Query".', { extensions: { code, field: 'id' } });
      const formatted: GraphQLFormattedError = {
        message: error.message,
        locations: [{ line: 1, column: 3 }],
        extensions: { code, field: 'id', stacktrace: ['GraphQLError: Cannot query field', '    at validate (/srv/node_modules/graphql/validation/validate.js:1:1)'] },
      };
      const result = createFormatError(logger)(formatted, error);
      expect(result).toEqual({ message: error.message, locations: [{ line: 1, column: 3 }], extensions: { code, field: 'id' } });
      expect(lines).toHaveLength(0);
    });
  });
});
