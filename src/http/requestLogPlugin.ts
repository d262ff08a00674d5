import type { ApolloServerPlugin } from '@apollo/server';
import type { GatewayContext } from '../context';

/** One log line per GraphQL request: id, operation, duration, outcome, error codes and the upstream calls made. */
export function requestLogPlugin(): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart({ contextValue }) {
      const started = performance.now();
      return {
        async willSendResponse({ response, errors, operationName }) {
          const codes = new Set<string>();
          const body = response.body.kind === 'single' ? response.body.singleResult : undefined;
          for (const e of body?.errors ?? errors ?? []) {
            const code = e.extensions?.code;
            if (typeof code === 'string') codes.add(code);
          }
          contextValue.logger.info(
            {
              operationName: operationName ?? null,
              durationMs: Math.round((performance.now() - started) * 10) / 10,
              outcome: codes.size === 0 ? 'success' : body?.data ? 'partial' : 'error',
              errorCodes: [...codes],
              upstreamCalls: contextValue.upstreamCalls.map((c) => `${c.service} ${c.method} ${c.route} ${c.status ?? c.error?.failure ?? '-'}`),
            },
            'graphql request',
          );
        },
      };
    },
  };
}
