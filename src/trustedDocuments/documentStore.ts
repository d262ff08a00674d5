import type { KeyValueCache, KeyValueCacheSetOptions } from '@apollo/utils.keyvaluecache';
import type { DocumentNode } from 'graphql';

/**
 * Apollo's document store (parsed and validated documents by the SHA-256 of their text) with the trusted documents
 * pinned: they were parsed and validated at start, so a request for one never parses or validates again, however
 * many other documents pass through the LRU behind it. Apollo keys entries `<schema hash>:<query hash>`
 * (@apollo/server's requestPipeline); only the query hash part is looked up here.
 */
export class PinnedDocumentStore implements KeyValueCache<DocumentNode> {
  constructor(
    private readonly pinned: ReadonlyMap<string, DocumentNode>,
    private readonly rest: KeyValueCache<DocumentNode>,
  ) {}

  async get(key: string): Promise<DocumentNode | undefined> {
    return this.pinned.get(key.slice(key.lastIndexOf(':') + 1)) ?? this.rest.get(key);
  }

  async set(key: string, value: DocumentNode, options?: KeyValueCacheSetOptions): Promise<void> {
    if (!this.pinned.has(key.slice(key.lastIndexOf(':') + 1))) await this.rest.set(key, value, options);
  }

  async delete(key: string): Promise<boolean | void> {
    return this.rest.delete(key);
  }
}
