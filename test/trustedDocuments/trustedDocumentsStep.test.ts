import { SAMPLE } from '../../src/sandbox';
import { sha256Hex } from '../../src/sha256';
import { LA_TERRAZZA, logLine, startStack, type Stack } from '../support/stack';
import { MANIFEST_PATH, byPersistedQuery, operation, post } from './support';

describe('trustedDocumentsStep', () => {
  describe('in enforce mode', () => {
    let stack: Stack;
    beforeAll(async () => {
      stack = await startStack({ env: { TRUSTED_DOCUMENTS: MANIFEST_PATH, TRUSTED_DOCUMENTS_MODE: 'enforce', MAX_BATCH_SIZE: '5' } });
    });
    afterAll(() => stack.close());
    beforeEach(() => stack.sandbox.resetRequests());

    it('serves a trusted document named by its id in the persisted query extension', async () => {
      const op = operation('CheckDetail');
      const res = await post(stack, byPersistedQuery(op.id, { id: SAMPLE.laTerrazza.openCheckId }), { 'x-request-id': 'enforce-by-id' });
      expect(res.status).toBe(200);
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data?.check).toMatchObject({ __typename: 'Check', status: expect.any(String) });
      expect(logLine(stack, 'enforce-by-id')).toMatchObject({ operationName: 'CheckDetail', document: 'trusted', documentHash: op.id });
    });

    it('serves documentId as "sha256:<id>" and as the bare id, and over GET', async () => {
      const op = operation('StaffList');
      for (const documentId of [`sha256:${op.id}`, op.id]) {
        const res = await post(stack, { documentId, variables: { perPage: 2 } });
        expect(res.body.errors).toBeUndefined();
        expect((res.body.data?.employees as { nodes: unknown[] }).nodes).toHaveLength(2);
      }
      const params = new URLSearchParams({ extensions: JSON.stringify({ persistedQuery: { version: 1, sha256Hash: op.id } }), variables: '{"perPage":1}' });
      const get = await fetch(`${stack.url}/graphql?${params.toString()}`, { headers: { ...LA_TERRAZZA, 'apollo-require-preflight': 'true' } });
      expect(get.status).toBe(200);
      expect(((await get.json()) as { data: { employees: { nodes: unknown[] } } }).data.employees.nodes).toHaveLength(1);
    });

    it('refuses a free-form document with PERSISTED_QUERY_NOT_IN_LIST before any upstream call, even one equal to a trusted body', async () => {
      const op = operation('StaffList');
      for (const query of ['{ employees { nodes { id } } }', op.body]) {
        const res = await post(stack, { query, variables: { perPage: 1 } }, { 'x-request-id': `enforce-text-${query.length}` });
        expect(res.status).toBe(400);
        expect(res.body.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_NOT_IN_LIST');
        expect(logLine(stack, `enforce-text-${query.length}`)).toMatchObject({ document: 'untrusted', httpStatus: 400, errorCodes: ['PERSISTED_QUERY_NOT_IN_LIST'] });
      }
      const get = await fetch(`${stack.url}/graphql?query=${encodeURIComponent('{ employees { nodes { id } } }')}`, { headers: { ...LA_TERRAZZA, 'apollo-require-preflight': 'true' } });
      expect(get.status).toBe(400);
      expect(stack.sandbox.requests).toHaveLength(0);
    });

    it('refuses the registration of an automatic persisted query', async () => {
      const query = 'query Mine { employees { nodes { id } } }';
      const res = await post(stack, { query, extensions: { persistedQuery: { version: 1, sha256Hash: sha256Hex(query) } } });
      expect(res.status).toBe(400);
      expect(res.body.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_NOT_IN_LIST');
      const again = await post(stack, byPersistedQuery(sha256Hex(query)));
      expect(again.body.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_NOT_FOUND');
      expect(stack.sandbox.requests).toHaveLength(0);
    });

    it('answers PERSISTED_QUERY_NOT_FOUND for an unknown id, whatever its form', async () => {
      for (const body of [byPersistedQuery('0'.repeat(64)), { documentId: `sha256:${'1'.repeat(64)}` }, { documentId: 'not-a-hash' }]) {
        const res = await post(stack, body);
        expect(res.body.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_NOT_FOUND');
      }
      expect(stack.sandbox.requests).toHaveLength(0);
    });

    it('refuses a batch when any of its operations is free-form', async () => {
      const op = operation('StaffList');
      const res = await post(stack, [byPersistedQuery(op.id, { perPage: 1 }), { query: '{ employees { nodes { id } } }' }]);
      expect(res.status).toBe(400);
      expect(res.body.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_NOT_IN_LIST');
      const trusted = await fetch(`${stack.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...LA_TERRAZZA },
        body: JSON.stringify([byPersistedQuery(op.id, { perPage: 1 }), { documentId: op.id, variables: { perPage: 2 } }]),
      });
      const answers = (await trusted.json()) as Array<{ data: { employees: { nodes: unknown[] } } }>;
      expect(answers.map((a) => a.data.employees.nodes.length)).toEqual([1, 2]);
    });
  });

  describe('in log mode (the default)', () => {
    let stack: Stack;
    beforeAll(async () => {
      stack = await startStack({ env: { TRUSTED_DOCUMENTS: MANIFEST_PATH } });
    });
    afterAll(() => stack.close());

    it('runs a free-form document and logs and counts it by hash as untrusted', async () => {
      const query = 'query Untrusted { employees(perPage: 1) { nodes { id } } }';
      const res = await post(stack, { query }, { 'x-request-id': 'log-untrusted' });
      expect(res.body.errors).toBeUndefined();
      expect(logLine(stack, 'log-untrusted')).toMatchObject({ document: 'untrusted', documentHash: sha256Hex(query) });
      const metrics = await (await fetch(`${stack.url}/metrics`)).text();
      expect(metrics).toMatch(/tablegraph_graphql_documents_total\{document="untrusted"\} [1-9]/);
    });

    it('serves trusted ids and marks them trusted', async () => {
      const op = operation('Staff');
      const res = await post(stack, byPersistedQuery(op.id), { 'x-request-id': 'log-trusted' });
      expect(res.body.errors).toBeUndefined();
      expect(logLine(stack, 'log-trusted')).toMatchObject({ document: 'trusted', operationName: 'Staff' });
    });

    it('keeps automatic persisted queries working', async () => {
      const query = 'query Apq { employees(perPage: 3) { nodes { id } } }';
      expect((await post(stack, byPersistedQuery(sha256Hex(query)))).body.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_NOT_FOUND');
      expect((await post(stack, { query, ...byPersistedQuery(sha256Hex(query)) })).body.errors).toBeUndefined();
      const byHash = await post(stack, byPersistedQuery(sha256Hex(query)), { 'x-request-id': 'log-apq' });
      expect((byHash.body.data?.employees as { nodes: unknown[] }).nodes).toHaveLength(3);
      expect(logLine(stack, 'log-apq')).toMatchObject({ document: 'untrusted', documentHash: sha256Hex(query) });
    });
  });

  describe('in off mode', () => {
    it('reads no manifest and leaves requests as they come', async () => {
      const stack = await startStack({ env: { TRUSTED_DOCUMENTS: '/nonexistent/manifest.json', TRUSTED_DOCUMENTS_MODE: 'off' } });
      try {
        const res = await post(stack, { query: '{ employees(perPage: 1) { nodes { id } } }' }, { 'x-request-id': 'off-1' });
        expect(res.body.errors).toBeUndefined();
        expect(logLine(stack, 'off-1').document).toBeUndefined();
      } finally {
        await stack.close();
      }
    });
  });
});
