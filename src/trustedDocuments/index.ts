import type { DocumentNode } from 'graphql';
import type { GraphqlStep } from '../http/graphqlRoute';
import type { GatewayMetrics } from '../observability/metrics';
import { readManifests } from './manifest';
import { prepareDocuments, type DocumentValidation } from './prepare';
import { trustedDocumentsStep, type TrustedDocumentsMode } from './trustedDocumentsStep';

export { TrustedDocumentsError, readManifests } from './manifest';
export { PinnedDocumentStore } from './documentStore';
export type { DocumentValidation } from './prepare';
export { trustedDocumentsStep } from './trustedDocumentsStep';

export interface TrustedDocumentsOptions {
  /** `off` turns the feature off: no manifest is read, every request runs as before. */
  mode: TrustedDocumentsMode;
  /** Manifest files (TRUSTED_DOCUMENTS). */
  paths: readonly string[];
  metrics?: GatewayMetrics;
}

/** What the gateway wires: the documents for Apollo's document store, and the route's step. */
export interface TrustedDocuments {
  /** Parses, validates and limit-checks every trusted document once; throws naming each invalid one. */
  pin: (validation: DocumentValidation) => ReadonlyMap<string, DocumentNode>;
  readonly step: GraphqlStep;
}

/** Reads the manifests (throws naming every bad file or operation); undefined when the mode is `off`. */
export function createTrustedDocuments(options: TrustedDocumentsOptions): TrustedDocuments | undefined {
  if (options.mode === 'off') return undefined;
  const operations = readManifests(options.paths);
  return {
    pin: (validation) => prepareDocuments(operations, validation),
    step: trustedDocumentsStep({ mode: options.mode, operations, metrics: options.metrics }),
  };
}
