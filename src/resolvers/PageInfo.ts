import type { PageInfoResolvers } from '../generated/graphql';

/** The upstream `meta` in the contract's PageInfo names, each field read (and checked) on its own. */
export const PageInfo: PageInfoResolvers = {
  totalCount: (m) => m.read('total_count'),
  currentPage: (m) => m.read('current_page'),
  perPage: (m) => m.read('per_page_count'),
  totalPages: (m) => m.read('total_page'),
  hasNextPage: (m) => m.read('has_next_page'),
};
