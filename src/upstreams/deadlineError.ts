import { UpstreamError } from '../errors/UpstreamError';
import type { ServiceName } from './serviceName';

/** The GraphQL request's own time budget ran out: a timeout that says nothing of the upstream's health. */
export function deadlineError(service: ServiceName): UpstreamError {
  return new UpstreamError(service, 'timeout', { detail: "the request's time budget ran out", deadlineExceeded: true });
}
