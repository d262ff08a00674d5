import { z } from 'zod';
import { InputError } from '../../src/errors/InputError';
import { opt, pageArgs, parseArgs, uuidArg } from '../../src/inputs/parse';
import { thrownBy } from '../support/failures';

describe('parseArgs', () => {
  const Args = z.object({ input: z.object({ ids: z.array(uuidArg), note: opt(z.string()) }) });

  it('gives the parsed arguments when they are valid', () => {
    const id = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
    expect(parseArgs(Args, { input: { ids: [id], note: null } })).toEqual({ input: { ids: [id], note: undefined } });
  });

  it('names the argument path of the first problem, list indexes in brackets', () => {
    const err = thrownBy(InputError, () => parseArgs(Args, { input: { ids: ['3f2504e0-4f89-11d3-9a0c-0305e82c3301', 'nope'] } }));
    expect(err.field).toBe('input.ids[1]');
    expect(err.message).toBe('input.ids[1]: must be a UUID');
    expect(err.extensions.code).toBe('BAD_USER_INPUT');
  });

  it('names no field when the arguments as a whole are wrong', () => {
    const err = thrownBy(InputError, () => parseArgs(z.string(), 42));
    expect(err.field).toBeUndefined();
    expect(err.message).toMatch(/^input: /);
  });
});

describe('pageArgs', () => {
  const Page = z.object(pageArgs);

  it.each([
    [{ page: 0, perPage: 10 }, 'page', 'must be at least 1'],
    [{ page: 1, perPage: 0 }, 'perPage', 'must be between 1 and 100'],
    [{ page: 1, perPage: 101 }, 'perPage', 'must be between 1 and 100'],
  ])('refuses %p naming %s', (args, field, message) => {
    expect(thrownBy(InputError, () => parseArgs(Page, args))).toMatchObject({ field, message: `${field}: ${message}` });
  });

  it('accepts the contract range, 1 to 100 per page', () => {
    expect(parseArgs(Page, { page: 1, perPage: 100 })).toEqual({ page: 1, perPage: 100 });
  });
});
