import type { GraphQLRequestContextWillSendResponse } from '@apollo/server';

/** How one GraphQL operation ended: no error; data with errors; or errors only. */
export type OperationOutcome = 'success' | 'partial' | 'error';

/** The outcome and the distinct `extensions.code`s of a response, as the log line, the metrics and the span report them. */
export function operationOutcome({ response, errors }: Pick<GraphQLRequestContextWillSendResponse<never>, 'response' | 'errors'>): {
  outcome: OperationOutcome;
  errorCodes: string[];
} {
  const codes = new Set<string>();
  const body = response.body.kind === 'single' ? response.body.singleResult : undefined;
  const reported = body?.errors ?? errors ?? [];
  for (const e of reported) {
    const code = e.extensions?.code;
    if (typeof code === 'string') codes.add(code);
  }
  // Partial only when some root field has data: `{ check: null }` with its error is a failed operation.
  const hasData = body?.data != null && Object.values(body.data).some((value) => value !== null);
  const outcome = reported.length === 0 ? 'success' : hasData ? 'partial' : 'error';
  return { outcome, errorCodes: [...codes] };
}
