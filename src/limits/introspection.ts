import { GraphQLError, type ValidationRule } from 'graphql';

/**
 * Refuses `__schema` and `__type` (not `__typename`, which clients need) when introspection is off. Apollo's own rule
 * would tell the client to "pass introspection: true to ApolloServer"; this one names the gateway's setting.
 */
export const introspectionOff: ValidationRule = (context) => ({
  Field(node) {
    if (node.name.value === '__schema' || node.name.value === '__type') {
      context.reportError(
        new GraphQLError('Introspection is off in production; the operator can turn it on with the setting INTROSPECTION=true', { nodes: [node] }),
      );
    }
  },
});
