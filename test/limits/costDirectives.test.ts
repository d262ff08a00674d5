import type { z } from 'zod';
import type { CostDirectiveArgs, ListSizeDirectiveArgs } from '../../src/generated/graphql';
import { CostArgs, ListSizeArgs } from '../../src/limits/costDirectives';

// Compile-time: what the zod schemas read is what the SDL declares (a change on either side stops `npm test`).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const costMatches: Same<z.infer<typeof CostArgs>, CostDirectiveArgs> = true;
const listSizeMatches: Same<Required<z.infer<typeof ListSizeArgs>>, Required<ListSizeDirectiveArgs>> = true;

describe('cost directive arguments', () => {
  it('read a weight in a string and refuse one that is not a number', () => {
    expect(costMatches && listSizeMatches).toBe(true);
    expect(CostArgs.parse({ weight: '10' })).toEqual({ weight: '10' });
    expect(CostArgs.safeParse({ weight: 'ten' }).success).toBe(false);
  });

  it('read the list size arguments the spec names', () => {
    expect(ListSizeArgs.parse({ slicingArguments: ['perPage'], sizedFields: ['nodes'], requireOneSlicingArgument: false })).toEqual({
      slicingArguments: ['perPage'],
      sizedFields: ['nodes'],
      requireOneSlicingArgument: false,
    });
    expect(ListSizeArgs.safeParse({ assumedSize: -1 }).success).toBe(false);
  });
});
