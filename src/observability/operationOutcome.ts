import type { GraphQLRequestContextWillSendResponse } from '@apollo/server';

/** How one GraphQL operation ended: no error; data with errors; or errors only. */
export type OperationOutcome = 'success' | 'partial' | 'error';

/** The outcome and the distinct `extensions.code`s of a response, as the log line, the metrics and the span report them. */
export function operationOutcome({ response, errors }: Pick<GraphQLRequestContextWillSendResponse<never>, 'response' | 'errors'>): {
  outcome: OperationOutcome;
  errorCodes: string[];
} {
  const body = response.body.kind === 'single' ? response.body.singleResult : undefined;
  return outcomeOfResult({ data: body?.data, errors: body?.errors ?? errors });
}

/** The same for a result as it stands in a body (one a step wrote, or a stored one replayed). */
export function outcomeOfResult(result: { data?: unknown; errors?: ReadonlyArray<{ extensions?: { code?: unknown } }> }): {
  outcome: OperationOutcome;
  errorCodes: string[];
} {
  const reported = result.errors ?? [];
  const codes = new Set<string>();
  for (const e of reported) {
    const code = e.extensions?.code;
    if (typeof code === 'string') codes.add(code);
  }
  // Partial only when some root field has data: `{ check: null }` with its error is a failed operation.
  const { data } = result;
  const hasData = typeof data === 'object' && data !== null && Object.values(data).some((value) => value !== null);
  const outcome = reported.length === 0 ? 'success' : hasData ? 'partial' : 'error';
  return { outcome, errorCodes: [...codes] };
}
