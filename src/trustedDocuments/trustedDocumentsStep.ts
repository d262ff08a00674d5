import type { DocumentNode } from 'graphql';
import { Counter } from 'prom-client';
import { persistedQueryNotFound } from '../apq/cache';
import { refusal, type GraphqlStep } from '../pipeline/types';
import { isWellFormedId, type OperationRequest } from '../http/operationRequests';
import type { GatewayMetrics } from '../observability/metrics';
import { sha256Hex } from '../sha256';
import { prepareDocuments, readManifests, type DocumentValidation, type ManifestOperation } from './manifest';

export type TrustedDocumentsMode = 'off' | 'log' | 'enforce';

/** Reads the manifests (TRUSTED_DOCUMENTS; throws naming every bad file or operation); undefined when the mode is `off`. */
export function createTrustedDocuments(options: { mode: TrustedDocumentsMode; paths: readonly string[]; metrics?: GatewayMetrics }) {
  if (options.mode === 'off') return undefined;
  const operations = readManifests(options.paths);
  return {
    pin: (validation: DocumentValidation): ReadonlyMap<string, DocumentNode> => prepareDocuments(operations, validation),
    step: trustedDocumentsStep({ mode: options.mode, operations, metrics: options.metrics }),
  };
}

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

/** Refusals are named as the counter labels them. */
type Verdict = { kind: 'trusted'; operation: ManifestOperation } | { kind: 'untrusted'; hash: string } | { kind: 'not_in_list' | 'not_found' | 'apollo' };

/**
 * The hashes of the free-form texts seen lately: an app sends the same few texts again and again. Bounded to 500
 * texts of at most 4096 characters (a few MiB at worst); a longer text is hashed each time.
 */
const textHashes = new Map<string, string>();
const MAX_TEXT_HASHES = 500;
const MAX_MEMO_TEXT = 4096;

function hashOfText(text: string): string {
  if (text.length > MAX_MEMO_TEXT) return sha256Hex(text);
  let hash = textHashes.get(text);
  if (hash === undefined) {
    if (textHashes.size >= MAX_TEXT_HASHES) textHashes.clear();
    textHashes.set(text, (hash = sha256Hex(text)));
  }
  return hash;
}

const NOT_IN_LIST = 'Only trusted documents are accepted here: send the id of an operation from the trusted-document manifest, not the document text';

/**
 * A request naming a trusted id runs its manifest body, which Apollo finds parsed and validated in its document store
 * (PinnedDocumentStore). A batch is trusted only when all its operations are, and refused when any is.
 */
export function trustedDocumentsStep(options: TrustedDocumentsStepOptions): GraphqlStep {
  const mode = options.mode ?? 'log';
  const counter = options.metrics
    ? new Counter({
        name: 'tablegraph_graphql_documents_total',
        help: 'GraphQL operation requests by how they named their document: trusted (by id), untrusted (free-form or APQ), not_in_list and not_found (refused)',
        labelNames: ['document'],
        registers: [options.metrics.registry],
      })
    : undefined;

  const judge = ({ ask }: OperationRequest): Verdict => {
    if (ask.kind === 'none') return { kind: 'apollo' };
    if (ask.kind === 'text') {
      if (mode === 'enforce') return { kind: 'not_in_list' };
      return { kind: 'untrusted', hash: ask.apqHash ?? hashOfText(ask.query) };
    }
    const id = ask.id.toLowerCase();
    const operation = isWellFormedId(id) ? options.operations.get(id) : undefined;
    if (operation) return { kind: 'trusted', operation };
    // Outside `enforce`, an unknown hash in Apollo's extension may be an automatic persisted query (src/apq/cache.ts).
    if (mode === 'log' && ask.via === 'persistedQuery') return { kind: 'untrusted', hash: id };
    // As Apollo answers an unknown persisted query: 200, so Apollo Client's links read the code and react.
    return { kind: 'not_found' };
  };

  // Not async: a request passes on to the next step without a promise of this one's own.
  return (request, next) => {
    // A body Apollo will refuse anyway (not JSON, empty) has no operations to judge.
    const asked = request.read.operations;
    if (asked.length === 0) return next();
    const verdicts = asked.map(judge);
    const refused = verdicts.find((v) => v.kind === 'not_in_list' || v.kind === 'not_found');
    const hashes = verdicts.map((v) => (v.kind === 'trusted' ? v.operation.id : v.kind === 'untrusted' ? v.hash : undefined)).filter((h) => h !== undefined);
    request.record.document = { trusted: verdicts.every((v) => v.kind === 'trusted'), hashes };
    if (refused) {
      counter?.inc({ document: refused.kind });
      return Promise.resolve(refused.kind === 'not_found' ? persistedQueryNotFound() : refusal(400, 'PERSISTED_QUERY_NOT_IN_LIST', NOT_IN_LIST));
    }
    verdicts.forEach((v, i) => {
      if (v.kind !== 'apollo') counter?.inc({ document: v.kind });
      const op = asked[i];
      // Each trusted operation becomes its manifest body: Apollo hashes it to the same id and finds it in the store.
      if (v.kind === 'trusted' && op) {
        op.query = v.operation.body;
        op.resolvedBy = 'trusted';
      }
    });
    return next();
  };
}
