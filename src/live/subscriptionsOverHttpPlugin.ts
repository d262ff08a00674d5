import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError, OperationTypeNode } from 'graphql';

/**
 * Refuses a subscription sent over HTTP (400, BAD_REQUEST) before it executes: the executor would otherwise run it
 * once like a query, and its field, fed only by the WebSocket's shared poll, would answer null.
 */
export function subscriptionsOverHttpPlugin(): ApolloServerPlugin {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation }) {
          if (operation?.operation !== OperationTypeNode.SUBSCRIPTION) return;
          throw new GraphQLError('Subscriptions run over the WebSocket on /graphql (graphql-ws); send queries and mutations over HTTP', {
            extensions: { code: 'BAD_REQUEST', http: { status: 400 } },
          });
        },
      };
    },
  };
}
