import { UpstreamError } from '../../src/errors/UpstreamError';
import { PageInfo } from '../../src/resolvers';
import { UpstreamRecord, type Deviation } from '../../src/upstreams/record';
import { PaginationMeta } from '../../src/upstreams/schemas';
import { pageMeta } from '../support/fixtures';
import { recordOrigin, resolveField } from '../support/resolvers';

/** A PageInfo field as the executor reads it: through its resolver when it renames, else off the record's getter. */
function field(meta: object, name: 'totalCount' | 'currentPage' | 'perPage' | 'totalPages' | 'hasNextPage'): unknown {
  const resolver = PageInfo[name];
  return resolver ? resolveField(resolver, meta) : (Reflect.get(meta, name) as unknown);
}

describe('PageInfo', () => {
  it('gives the upstream meta in the contract names', () => {
    const meta = UpstreamRecord.of(PaginationMeta, pageMeta({ total_count: 120, current_page: 2, per_page_count: 50, total_page: 3, has_next_page: true }), recordOrigin('pos', '/employees'));
    const fields = ['totalCount', 'currentPage', 'perPage', 'totalPages', 'hasNextPage'] as const;
    expect(fields.map((f) => field(meta, f))).toEqual([120, 2, 50, 3, true]);
  });

  it('needs resolvers only for the fields it renames', () => {
    expect(Object.keys(PageInfo).sort()).toEqual(['perPage', 'totalPages']);
  });

  it('fails only the field whose upstream value breaks it', () => {
    const seen: Deviation[] = [];
    const meta = UpstreamRecord.of(PaginationMeta, { ...pageMeta(), total_page: 'three' }, recordOrigin('pos', '/employees', seen));
    expect(field(meta, 'totalCount')).toBe(1);
    expect(() => resolveField(PageInfo.totalPages, meta)).toThrow(UpstreamError);
    expect(seen.map((d) => [d.field, d.received])).toEqual([['total_page', 'string']]);
  });
});
