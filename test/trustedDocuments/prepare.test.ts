import { HeaderMap, type ApolloServerPlugin } from '@apollo/server';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createExecution } from '../../src/apolloServer';
import { createPersistedQueryCache } from '../../src/apq/cache';
import { loadConfig } from '../../src/config';
import type { GatewayContext } from '../../src/context';
import { createLogger } from '../../src/logger';
import { createRequestRecord } from '../../src/pipeline/record';
import { createGateway } from '../../src/server';
import { sha256Hex } from '../../src/sha256';
import { prepareDocuments, readManifests, TrustedDocumentsError } from '../../src/trustedDocuments/manifest';
import { spawnGateway } from '../support/gatewayProcess';
import { MANIFEST_PATH, operation } from './support';

const dir = mkdtempSync(join(tmpdir(), 'tablegraph-manifests-'));

/** A manifest file holding the given bodies, named as given, with correct ids unless `id` is set. */
function writeManifest(file: string, ops: Array<{ name: string; body: string; id?: string }>): string {
  const path = join(dir, file);
  const operations = ops.map((o) => ({ id: o.id ?? sha256Hex(o.body), name: o.name, type: 'query', body: o.body }));
  writeFileSync(path, JSON.stringify({ format: 'apollo-persisted-query-manifest', version: 1, operations }));
  return path;
}

const env = (extra: Record<string, string>) => loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', RESERVATION_BASE_URL: 'http://127.0.0.1:9', POS_BASE_URL: 'http://127.0.0.1:9', ...extra });
const build = (extra: Record<string, string>) => () => createGateway({ config: env(extra), logger: createLogger({ level: 'silent' }) });

describe('prepareDocuments', () => {
  it('stops the start naming an operation that no longer validates, and its manifest', () => {
    const path = writeManifest('stale.json', [
      { name: 'Fine', body: 'query Fine { employees { nodes { id } } }' },
      { name: 'Stale', body: 'query Stale { employees { nodes { nickname } } }' },
    ]);
    expect(build({ TRUSTED_DOCUMENTS: path })).toThrow(TrustedDocumentsError);
    expect(build({ TRUSTED_DOCUMENTS: path })).toThrow(/operation Stale \(id [0-9a-f]{12}…\) in .*stale\.json does not validate against the schema: Cannot query field "nickname" on type "Employee"/);
    expect(build({ TRUSTED_DOCUMENTS: path })).not.toThrow(/operation Fine/);
  });

  it('applies the document limits at start', () => {
    const path = writeManifest('deep.json', [{ name: 'Deep', body: 'query Deep { check(id: "x") { customer { metafields { id } } } }' }]);
    expect(build({ TRUSTED_DOCUMENTS: path, MAX_DEPTH: '2' })).toThrow(/operation Deep .* does not validate/);
    expect(build({ TRUSTED_DOCUMENTS: path, MAX_TOKENS: '5' })).toThrow(/operation Deep .* does not parse/);
    expect(build({ TRUSTED_DOCUMENTS: path })).not.toThrow();
  });

  it('refuses an id that is not the SHA-256 of its body, and a file that is not a manifest', () => {
    const path = writeManifest('forged.json', [{ name: 'Forged', body: 'query Forged { employees { nodes { id } } }', id: 'a'.repeat(64) }]);
    expect(() => readManifests([path])).toThrow(/operation Forged .* the id is not the SHA-256 of the body/);
    const notManifest = join(dir, 'other.json');
    writeFileSync(notManifest, JSON.stringify({ 'sha256:abc': 'query { x }' }));
    expect(() => readManifests([notManifest])).toThrow(/other\.json: format/);
  });

  it('refuses enforce mode without manifests at start', () => {
    expect(() => env({ TRUSTED_DOCUMENTS_MODE: 'enforce' })).toThrow(/TRUSTED_DOCUMENTS: is required/);
    expect(() => env({ TRUSTED_DOCUMENTS_MODE: 'strict' })).toThrow(/TRUSTED_DOCUMENTS_MODE/);
  });

  it('reads nothing in off mode', () => {
    expect(build({ TRUSTED_DOCUMENTS: join(dir, 'missing.json'), TRUSTED_DOCUMENTS_MODE: 'off' })).not.toThrow();
    expect(build({ TRUSTED_DOCUMENTS: join(dir, 'missing.json') })).toThrow(/missing\.json: cannot be read/);
  });

  it('makes `npm start` exit 1 with the message', async () => {
    const path = writeManifest('start.json', [{ name: 'Broken', body: 'query Broken { nothing }' }]);
    const gateway = spawnGateway('src/main.ts', { SINGLE_REPLICA: 'true', RESERVATION_BASE_URL: 'http://127.0.0.1:9', POS_BASE_URL: 'http://127.0.0.1:9', PORT: '0', TRUSTED_DOCUMENTS: path });
    expect(await gateway.exited).toBe(1);
    expect(gateway.stderr()).toMatch(/operation Broken .* does not validate/);
  });

  it('validates every operation of the repo manifest', () => {
    const config = env({});
    const operations = readManifests([MANIFEST_PATH]);
    let pinned: ReadonlyMap<string, unknown> | undefined;
    createExecution({
      config,
      logger: createLogger({ level: 'silent' }),
      persistedQueries: createPersistedQueryCache({ maxBytes: 1024 }),
      pinDocuments: (validation) => (pinned = prepareDocuments(operations, validation)),
    });
    expect(pinned?.size).toBe(operations.size);
  });
});

describe('PinnedDocumentStore', () => {
  it('serves a trusted document without parsing or validating it, and parses any other text', async () => {
    const config = env({ TRUSTED_DOCUMENTS: MANIFEST_PATH });
    const phases: string[] = [];
    const recorder: ApolloServerPlugin<GatewayContext> = {
      async requestDidStart() {
        return {
          async parsingDidStart() {
            phases.push('parse');
          },
          async validationDidStart() {
            phases.push('validate');
          },
        };
      },
    };
    const operations = readManifests([MANIFEST_PATH]);
    const { apollo } = createExecution({
      config,
      logger: createLogger({ level: 'silent' }),
      persistedQueries: createPersistedQueryCache({ maxBytes: 1024 }),
      pinDocuments: (validation) => prepareDocuments(operations, validation),
      plugins: [recorder],
    });
    await apollo.start();
    try {
      const run = async (query: string) => {
        const result = await apollo.executeHTTPGraphQLRequest({
          httpGraphQLRequest: { method: 'POST', headers: new HeaderMap([['content-type', 'application/json']]), search: '', body: { query, variables: { perPage: 1 } } },
          // Execution fails on this bare context (nothing reaches an upstream); only the phases before it count here.
          context: async () => ({ record: createRequestRecord(undefined) }) as unknown as GatewayContext,
        });
        return result.status ?? 200;
      };
      await run(operation('StaffList').body);
      expect(phases).toEqual([]);
      await run('query Other($perPage: Int) { employees(perPage: $perPage) { nodes { id } } }');
      expect(phases).toEqual(['parse', 'validate']);
    } finally {
      await apollo.stop();
    }
  });
});
