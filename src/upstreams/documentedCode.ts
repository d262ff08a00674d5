import type { ErrorCode } from '../errors/codes';

/** What a service's document says one of its error codes means. */
export interface DocumentedCode {
  /** The reason name the document gives it: `extensions.upstream.reason`. */
  reason: string;
  /** The contract's `extensions.code` when the code means more than its status (832 arrives as a 422). */
  code?: ErrorCode;
  /** The upstream request field the code is about: `extensions.field`, named after the GraphQL input. */
  field?: string;
}
