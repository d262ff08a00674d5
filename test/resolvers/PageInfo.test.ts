import { UpstreamError } from '../../src/errors';
import { PageInfo } from '../../src/resolvers/PageInfo';
import { UpstreamRecord, type Deviation } from '../../src/upstreams/record';
import { PaginationMeta } from '../../src/upstreams/schemas';
import { pageMeta } from '../support/fixtures';
import { recordOrigin, resolveField } from '../support/resolvers';

describe('PageInfo', () => {
  it('gives the upstream meta in the contract names', () => {
    const meta = UpstreamRecord.of(PaginationMeta, pageMeta({ total_count: 120, current_page: 2, per_page_count: 50, total_page: 3, has_next_page: true }), recordOrigin('pos', '/employees'));
    const fields = ['totalCount', 'currentPage', 'perPage', 'totalPages', 'hasNextPage'] as const;
    expect(fields.map((f) => resolveField(PageInfo[f], meta))).toEqual([120, 2, 50, 3, true]);
  });

  it('fails only the field whose upstream value breaks it', () => {
    const seen: Deviation[] = [];
    const meta = UpstreamRecord.of(PaginationMeta, { ...pageMeta(), total_page: 'three' }, recordOrigin('pos', '/employees', seen));
    expect(resolveField(PageInfo.totalCount, meta)).toBe(1);
    expect(() => resolveField(PageInfo.totalPages, meta)).toThrow(UpstreamError);
    expect(seen.map((d) => [d.field, d.received])).toEqual([['total_page', 'string']]);
  });
});
