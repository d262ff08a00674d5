import type { PageInfo } from '../generated/graphql';
import type { PaginationMetaDto } from '../upstreams/schemas';

/** The upstream `meta` in the contract's PageInfo names. */
export function pageInfoOf(meta: PaginationMetaDto): PageInfo {
  return {
    totalCount: meta.total_count,
    currentPage: meta.current_page,
    perPage: meta.per_page_count,
    totalPages: meta.total_page,
    hasNextPage: meta.has_next_page,
  };
}
