import { Counter } from 'prom-client';
import { refusal, type GraphqlRequest, type GraphqlResponse, type GraphqlStep } from '../http/graphqlRoute';
import type { GatewayMetrics } from '../observability/metrics';
import { sha256Hex } from '../sha256';
import type { ManifestOperation } from './manifest';
import { documentAsk, isWellFormedId, withoutPersistedQuery, type OperationFields } from './requestShape';
import { isPlainObject } from '../upstreams/fieldPlan';

export type TrustedDocumentsMode = 'off' | 'log' | 'enforce';

export interface TrustedDocumentsStepOptions {
  /**
   * `log` (default): free-form documents run, and are counted and logged by hash as untrusted. `enforce`: only ids of
   * trusted documents run; a free-form document is refused with `PERSISTED_QUERY_NOT_IN_LIST` (HTTP 400) before any
   * other work, even when its text equals a trusted body, and so is an APQ registration.
   */
  mode?: Exclude<TrustedDocumentsMode, 'off'>;
  /** The trusted operations by id (`readManifests`). */
  operations: ReadonlyMap<string, ManifestOperation>;
  /** Where `tablegraph_graphql_documents_total` is counted. Default: not counted. */
  metrics?: GatewayMetrics;
}

/**
 * Whether every operation of the request named a trusted document by id (never true for free-form text, even one
 * equal to a trusted body). For policies after this step, e.g. "trusted documents only" for first-party apps;
 * the trusted documents step must come before them in the route's steps.
 */
export function servedByTrustedId(request: Pick<GraphqlRequest, 'logFields'>): boolean {
  return request.logFields.document === 'trusted';
}

type Verdict =
  | { kind: 'trusted'; operation: ManifestOperation }
  | { kind: 'untrusted'; hash: string }
  | { kind: 'refused'; status: number; code: 'PERSISTED_QUERY_NOT_IN_LIST' | 'PERSISTED_QUERY_NOT_FOUND'; message: string }
  | { kind: 'apollo' };

const NOT_IN_LIST = 'Only trusted documents are accepted here: send the id of an operation from the trusted-document manifest, not the document text';
const NOT_FOUND = 'PersistedQueryNotFound';

/**
 * Trusted documents at the HTTP layer: a request naming a trusted id runs its manifest body, which Apollo finds
 * parsed and validated in its document store (PinnedDocumentStore); free-form documents are logged (`log`) or
 * refused (`enforce`). A batch is trusted only when all its operations are, and refused when any is.
 */
export function trustedDocumentsStep(options: TrustedDocumentsStepOptions): GraphqlStep {
  const mode = options.mode ?? 'log';
  const { operations } = options;
  const counter = options.metrics
    ? new Counter({
        name: 'tablegraph_graphql_documents_total',
        help: 'GraphQL operation requests by how they named their document: trusted (by id), untrusted (free-form or APQ), not_in_list and not_found (refused)',
        labelNames: ['document'],
        registers: [options.metrics.registry],
      })
    : undefined;

  const judge = (fields: OperationFields): Verdict => {
    const ask = documentAsk(fields);
    if (ask.kind === 'none') return { kind: 'apollo' };
    if (ask.kind === 'text') {
      if (mode === 'enforce') return { kind: 'refused', status: 400, code: 'PERSISTED_QUERY_NOT_IN_LIST', message: NOT_IN_LIST };
      return { kind: 'untrusted', hash: ask.apqHash ?? sha256Hex(ask.query) };
    }
    const operation = isWellFormedId(ask.id) ? operations.get(ask.id) : undefined;
    if (operation) return { kind: 'trusted', operation };
    // Outside `enforce`, an unknown hash in Apollo's extension may be an automatic persisted query: Apollo looks it up.
    if (mode === 'log' && ask.via === 'persistedQuery') return { kind: 'untrusted', hash: ask.id };
    // As Apollo answers an unknown persisted query: 200, so Apollo Client's links read the code and react.
    return { kind: 'refused', status: 200, code: 'PERSISTED_QUERY_NOT_FOUND', message: NOT_FOUND };
  };

  return async (request, next) => {
    const verdicts = judgeRequest(request, judge);
    if (verdicts.length === 0) return next();
    const refusal = verdicts.find((v): v is Extract<Verdict, { kind: 'refused' }> => v.kind === 'refused');
    const trusted = verdicts.every((v) => v.kind === 'trusted');
    request.logFields.document = trusted ? 'trusted' : 'untrusted';
    const hashes = verdicts.map((v) => (v.kind === 'trusted' ? v.operation.id : v.kind === 'untrusted' ? v.hash : undefined)).filter((h) => h !== undefined);
    if (hashes.length > 0) request.logFields.documentHash = hashes.join(',');
    if (refusal) {
      counter?.inc({ document: refusal.code === 'PERSISTED_QUERY_NOT_IN_LIST' ? 'not_in_list' : 'not_found' });
      return refuse(refusal);
    }
    for (const v of verdicts) if (v.kind !== 'apollo') counter?.inc({ document: v.kind });
    rewrite(request, verdicts);
    return next();
  };
}

/** The verdict of each operation of the request; none for a body Apollo will refuse anyway (not JSON, empty). */
function judgeRequest(request: GraphqlRequest, judge: (fields: OperationFields) => Verdict): Verdict[] {
  if (request.method === 'GET') {
    const params = request.url.searchParams;
    return [judge({ query: params.get('query') ?? undefined, documentId: params.get('documentId') ?? undefined, extensions: parseJson(params.get('extensions')) })];
  }
  const { body } = request;
  if (Array.isArray(body)) return body.map((item) => judge(isPlainObject(item) ? item : {}));
  return isPlainObject(body) ? [judge(body)] : [];
}

/** Each trusted operation becomes its manifest body: Apollo hashes it to the same id and finds it in the store. */
function rewrite(request: GraphqlRequest, verdicts: Verdict[]): void {
  if (request.method === 'GET') {
    const verdict = verdicts[0];
    if (verdict?.kind !== 'trusted') return;
    const params = request.url.searchParams;
    params.set('query', verdict.operation.body);
    params.delete('documentId');
    const extensions = withoutPersistedQuery(parseJson(params.get('extensions')));
    if (extensions) params.set('extensions', JSON.stringify(extensions));
    else params.delete('extensions');
    return;
  }
  const items = Array.isArray(request.body) ? (request.body as unknown[]) : [request.body];
  const rewritten = items.map((item, i) => {
    const verdict = verdicts[i];
    if (verdict?.kind !== 'trusted' || !isPlainObject(item)) return item;
    const { documentId: _id, extensions, ...rest } = item;
    const others = withoutPersistedQuery(extensions);
    return { ...rest, query: verdict.operation.body, ...(others ? { extensions: others } : {}) };
  });
  request.body = Array.isArray(request.body) ? rewritten : rewritten[0];
}

function refuse(verdict: Extract<Verdict, { kind: 'refused' }>): Promise<GraphqlResponse> {
  const headers: Record<string, string> = verdict.code === 'PERSISTED_QUERY_NOT_FOUND' ? { 'cache-control': 'private, no-cache, must-revalidate' } : {};
  return Promise.resolve(refusal(verdict.status, verdict.code, verdict.message, headers));
}


function parseJson(text: string | null): unknown {
  if (text === null) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined; // Apollo refuses malformed extensions itself
  }
}
