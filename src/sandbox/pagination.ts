import { errorReply, type SandboxReply } from './http';

/** The POS pagination metadata; the sandbox's reservation list uses the same fields (an assumption of the contract). */
export interface PaginationMeta {
  total_count: number;
  current_page: number;
  per_page_count: number;
  total_page: number;
  has_next_page: boolean;
}

export interface PageRequest {
  page: number;
  perPage: number;
}

/** Documented defaults: page 1, per_page 50. Assumption: per_page above 100 is capped to 100. */
export const DEFAULT_PER_PAGE = 50;
export const MAX_PER_PAGE = 100;

const POSITIVE_INTEGER = /^[1-9]\d{0,8}$/;

/** page and per_page from the query; a value that is not a positive integer answers 400. */
export function pageRequestOf(query: URLSearchParams): PageRequest | SandboxReply {
  const page = query.get('page') ?? '1';
  const perPage = query.get('per_page') ?? String(DEFAULT_PER_PAGE);
  if (!POSITIVE_INTEGER.test(page)) return errorReply(400, 'page must be a positive integer', 400);
  if (!POSITIVE_INTEGER.test(perPage)) return errorReply(400, 'per_page must be a positive integer', 400);
  return { page: Number(page), perPage: Math.min(Number(perPage), MAX_PER_PAGE) };
}

export function isPageRequest(value: PageRequest | SandboxReply): value is PageRequest {
  return 'page' in value;
}

/** One page of items; a page past the end is empty, not an error. */
export function paginate<T>(items: readonly T[], { page, perPage }: PageRequest): { items: T[]; meta: PaginationMeta } {
  const totalPage = Math.ceil(items.length / perPage);
  return {
    items: items.slice((page - 1) * perPage, page * perPage),
    meta: { total_count: items.length, current_page: page, per_page_count: perPage, total_page: totalPage, has_next_page: page < totalPage },
  };
}
