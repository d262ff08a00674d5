import type { PageInfoResolvers } from '../generated/graphql';

/**
 * The upstream `meta` (always a record: both pages read it with `read('meta')`) in the contract's PageInfo names.
 * Only the renamed fields need a resolver; totalCount, currentPage and hasNextPage are the record's own getters.
 */
export const PageInfo: PageInfoResolvers = {
  perPage: (m) => m.read('per_page_count'),
  totalPages: (m) => m.read('total_page'),
};
