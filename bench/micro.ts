import { execute, parse, specifiedRules, validate } from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import { makeExecutableSchema } from '@graphql-tools/schema';
import pino from 'pino';
import { Writable } from 'node:stream';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { REDACT_PATHS } from '../src/logger';
import { RECORD_TYPES, resolvers } from '../src/resolvers';
import { createSampleState, SAMPLE } from '../src/sandbox';
import { buildExecutableSchema, loadTypeDefs } from '../src/schema';
import { sha256Hex } from '../src/sha256';
import { Check, type CheckDto } from '../src/upstreams/pos/dto';
import { trustedDocumentsStep } from '../src/trustedDocuments/trustedDocumentsStep';
import type { GraphqlRequest } from '../src/pipeline/types';
import { operationsOfBody } from '../src/http/operationRequests';
import { createRequestRecord } from '../src/pipeline/record';
import { UpstreamRecord } from '../src/upstreams/record';
import { documentId, OPERATIONS, requestBody } from './operations';
import { benchNow } from './scenarios';
import { mapCheck } from './baseline';
import { REFERENCE_SCALARS } from './mercurius';

/**
 * `npm run bench:micro`: the pieces of one request that the optimisations in docs/performance.md changed, each timed
 * alone in this process (warm, medians of 5 batches): execution of S1's full Check by graphql-js and by graphql-jit
 * (and by the Mercurius reference's schema and mapping),
 * the writing of its answer by JSON.stringify, the check's JSON parse and zod check, one request log line with the old
 * wildcard redaction and the current one, the reading of a request body into its operations, the document phase a
 * trusted id skips beside what the trusted documents step costs, and what compressing a large answer costs (every
 * reservation and check of the sample venue as one JSON body) by coding.
 */
const BATCH = 5000;

async function time(label: string, fn: () => unknown): Promise<void> {
  for (let i = 0; i < BATCH; i++) await fn();
  const batches: number[] = [];
  for (let b = 0; b < 5; b++) {
    const started = performance.now();
    for (let i = 0; i < BATCH; i++) await fn();
    batches.push(((performance.now() - started) / BATCH) * 1000);
  }
  batches.sort((a, c) => a - c);
  process.stdout.write(`${label.padEnd(58)} ${batches[2].toFixed(1).padStart(7)} µs\n`);
}

async function main(): Promise<void> {
  const state = createSampleState({ now: benchNow() });
  const raw = JSON.stringify(state.tenants.laTerrazza.checks.get(SAMPLE.laTerrazza.openCheckId));
  const body: unknown = JSON.parse(raw);
  const origin = { service: 'pos' as const, route: '/checks/:id', status: 200, deviations: { report: () => undefined } };
  // A new record per execution, as per request: a record keeps each field it has read.
  const context = { loaders: { checkById: { load: async () => UpstreamRecord.of(Check, body, origin) } } };
  const variables = { id: SAMPLE.laTerrazza.openCheckId };
  const document = parse(OPERATIONS.S1.query);

  // The gateway's schema serves both engines (graphql-js runs what is not compiled).
  const schema = buildExecutableSchema(loadTypeDefs(), resolvers, RECORD_TYPES);
  const compiled = compileQuery(schema, document, OPERATIONS.S1.operationName);
  if (!isCompiledQuery(compiled)) throw new Error('S1 does not compile');
  const a = JSON.stringify(await execute({ schema, document, contextValue: context, variableValues: variables }));
  const b = JSON.stringify(await compiled.query(undefined, context, variables));
  if (a !== b) throw new Error('graphql-js and graphql-jit answer S1 differently');

  process.stdout.write(`S1's check: ${raw.length} bytes upstream, ${a.length} bytes answered\n`);
  await time('execute S1, graphql-js', () => execute({ schema, document, contextValue: context, variableValues: variables }));
  await time('execute S1, graphql-jit (compiled once)', () => compiled.query(undefined, context, variables));
  // The Mercurius reference's execution (bench/mercurius.ts): the same SDL and scalars, graphql-jit over the plain
  // objects of its hand mapping, mapped per execution as it maps per request.
  const reference = makeExecutableSchema({
    typeDefs: loadTypeDefs(),
    resolvers: { ...REFERENCE_SCALARS, Query: { check: (_root: unknown, _args: unknown, ctx: { load(): Promise<unknown> }) => ctx.load() } },
  });
  const referenceQuery = compileQuery(reference, document, OPERATIONS.S1.operationName);
  if (!isCompiledQuery(referenceQuery)) throw new Error('S1 does not compile on the reference schema');
  const referenceContext = { load: async () => mapCheck(body as CheckDto) };
  if (JSON.stringify(await referenceQuery.query(undefined, referenceContext, variables)) !== b) throw new Error('the reference executes S1 differently');
  await time("execute S1, the reference's (graphql-jit on its mapping)", () => referenceQuery.query(undefined, referenceContext, variables));
  const data = (await compiled.query(undefined, context, variables)).data;
  await time("write S1's data, JSON.stringify", () => JSON.stringify(data));
  await time('JSON.parse of the check', () => JSON.parse(raw));
  await time('JSON.parse + zod Check.parse (whole, as before issue 8)', () => Check.parse(JSON.parse(raw)));
  await time('JSON.parse + UpstreamRecord.of (fields are checked when read)', () => UpstreamRecord.of(Check, JSON.parse(raw), origin));

  const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
  const line = { operationName: 'BenchCheck', durationMs: 3.2, outcome: 'success', errorCodes: [], upstreamCalls: [{ service: 'pos', method: 'GET', route: '/checks/:id', status: 200, durationMs: 1.2 }] };
  const wildcard = [...new Set(REDACT_PATHS.map((p) => p.replace(/^.*headers\[/, '*.headers[')))];
  const old = pino({ redact: { paths: [...wildcard, ...wildcard.map((p) => p.slice(2))], censor: '[redacted]' } }, sink);
  const current = pino({ redact: { paths: REDACT_PATHS, censor: '[redacted]' } }, sink);
  await time('log line, redaction by *.headers wildcard paths', () => old.info(line, 'graphql request'));
  await time('log line, redaction by spelled-out paths (current)', () => current.info(line, 'graphql request'));

  // What a trusted id saves, and what it costs: a document-store miss, Apollo's key, and the route step itself.
  const id = documentId('S1id');
  await time('S1 document: parse + validate (a document-store miss)', () => validate(schema, parse(OPERATIONS.S1.query), specifiedRules));
  await time("S1 document: SHA-256 of its text (Apollo's store key)", () => sha256Hex(OPERATIONS.S1.query));
  const step = trustedDocumentsStep({ operations: new Map([[id, { id, name: 'BenchCheck', type: 'query', body: OPERATIONS.S1.query, source: 'bench' }]]) });
  const respond = () => Promise.resolve({ status: 200, headers: new Map<string, string>(), body: '' });
  const through = (body: string) => () => step({ method: 'POST', read: operationsOfBody(JSON.parse(body) as unknown), record: createRequestRecord('bench') } as GraphqlRequest, respond);
  // The route's reading of a POST body into its operations, before any step.
  const floor = JSON.stringify({ query: '{ __typename }' });
  const s1 = requestBody('S1', variables);
  await time('request body read: JSON.parse + operationsOfBody, { __typename }', () => operationsOfBody(JSON.parse(floor) as unknown));
  await time('request body read: JSON.parse + operationsOfBody, S1 as text', () => operationsOfBody(JSON.parse(s1) as unknown));
  await time('JSON.parse alone, S1 as text', () => JSON.parse(s1));
  await time('trusted documents step, S1 by id (JSON body parse, lookup, rewrite)', through(requestBody('S1id', variables)));
  await time('trusted documents step, S1 as text (JSON body parse, hash, log fields)', through(requestBody('S1', variables)));

  // RESPONSE_COMPRESSION: CPU per large answer by coding (the gateway's br quality is 4; zlib's default is 11).
  const venue = state.tenants.laTerrazza;
  const large = Buffer.from(JSON.stringify({ reservations: [...venue.reservations.values()], checks: [...venue.checks.values()] }));
  const codings: Array<[string, (b: Buffer) => Buffer]> = [
    ['gzip (level 6)', (b) => gzipSync(b)],
    ['br, quality 4 (the gateway)', (b) => brotliCompressSync(b, { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } })],
    ['br, quality 11 (zlib default)', (b) => brotliCompressSync(b)],
  ];
  for (const [label, compress] of codings) {
    const started = process.cpuUsage();
    const rounds = 10;
    let bytes = 0;
    for (let i = 0; i < rounds; i++) bytes = compress(large).length;
    const { user, system } = process.cpuUsage(started);
    process.stdout.write(`${`compress ${large.length} bytes, ${label}`.padEnd(58)} ${((user + system) / rounds / 1000).toFixed(1).padStart(7)} ms CPU, ${bytes} bytes\n`);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:micro failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
