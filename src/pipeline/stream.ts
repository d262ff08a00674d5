import type { FormattedExecutionResult } from 'graphql';

/**
 * One result of a stream as the wire carries it, errors already formatted: a subscription's event, or an incremental
 * answer's initial result and each subsequent payload (`incremental`, `hasNext`).
 */
export interface StreamResult extends FormattedExecutionResult {
  hasNext?: boolean;
  incremental?: ReadonlyArray<Record<string, unknown>>;
}

/** An answer of many results: the transport writes each as it comes, and ends the iterator when the client leaves. */
export interface ResultStream {
  /** `subscription`: a live view's events until it completes; `incremental`: `@defer`/`@stream` parts until `hasNext: false`. */
  readonly kind: 'subscription' | 'incremental';
  readonly results: AsyncIterableIterator<StreamResult>;
}
