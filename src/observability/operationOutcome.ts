import type { GraphQLRequestContextWillSendResponse } from '@apollo/server';

/** How one GraphQL operation ended: no error; data with errors; or errors only. */
export type OperationOutcome = 'success' | 'partial' | 'error';

/** The outcome and the distinct `extensions.code`s of a response, as the log line, the metrics and the span report them. */
export function operationOutcome({ response, errors }: Pick<GraphQLRequestContextWillSendResponse<never>, 'response' | 'errors'>): {
  outcome: OperationOutcome;
  errorCodes: string[];
} {
  const body = response.body.kind === 'single' ? response.body.singleResult : undefined;
  const reported = body?.errors ?? errors ?? [];
  const codes = new Set<string>();
  for (const e of reported) {
    const code = e.extensions?.code;
    if (typeof code === 'string') codes.add(code);
  }
  // Partial only when some root field has data: `{ check: null }` with its error is a failed operation.
  const data = body?.data;
  const hasData = typeof data === 'object' && data !== null && Object.values(data).some((value) => value !== null);
  const outcome = reported.length === 0 ? 'success' : hasData ? 'partial' : 'error';
  return { outcome, errorCodes: [...codes] };
}
