import type { ApolloServerPlugin } from '@apollo/server';
import {
  GraphQLError,
  GraphQLInt,
  Kind,
  getNamedType,
  isObjectType,
  valueFromAST,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';

/**
 * Upstream calls each field can cause (an upper bound: the loader's de-duplication can only lower it), and the
 * list fields whose items multiply what is selected below them. graphql-armor's cost limit multiplies lists by
 * `first`/`last` only; ours page with `perPage`, so the fan-out of a page of reservations, each loading its POS
 * check, is counted here.
 */
const CALLS: Readonly<Record<string, number>> = {
  'Query.check': 1,
  'Query.employees': 1,
  'Query.reservation': 1,
  'Query.reservations': 1,
  'Reservation.check': 1,
  'Mutation.createReservation': 1,
  'Mutation.createCalendarReservation': 1,
  'Mutation.createOffDay': 1,
  'Mutation.updatePaymentRequest': 1,
};
const PAGED: ReadonlySet<string> = new Set(['Query.reservations', 'Query.employees']);
const DEFAULT_PER_PAGE = 50;

export interface UpstreamCallLimitPluginOptions {
  /** Most upstream calls one operation may cause. */
  maxCalls: number;
}

/** Refuses, before execution, an operation that could cause more than `maxCalls` upstream calls. */
export function upstreamCallLimitPlugin(options: UpstreamCallLimitPluginOptions): ApolloServerPlugin {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation, document, schema, request }) {
          if (!operation) return;
          const root = operation.operation === 'mutation' ? schema.getMutationType() : schema.getQueryType();
          if (!root) return;
          const fragments = new Map<string, FragmentDefinitionNode>();
          for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
          const calls = countCalls(operation.selectionSet, root, 1, { fragments, variables: request.variables ?? {}, calling: callingTypesOf(schema) });
          if (calls > options.maxCalls) {
            throw new GraphQLError(
              `This operation is too costly: it could make ${calls} upstream calls, and the limit is ${options.maxCalls} (MAX_UPSTREAM_CALLS). Ask for fewer items per page or fewer aliases.`,
              { extensions: { code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 400 } } },
            );
          }
        },
      };
    },
  };
}

interface Walk {
  fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  variables: Record<string, unknown>;
  /** Types below which some field calls an upstream; the walk skips the others (a whole Check, say). */
  calling: ReadonlySet<string>;
}

const callingTypes = new WeakMap<GraphQLSchema, ReadonlySet<string>>();

/** The object types from which a field that calls an upstream can be reached, once per schema. */
function callingTypesOf(schema: GraphQLSchema): ReadonlySet<string> {
  let calling = callingTypes.get(schema);
  if (calling) return calling;
  const found = new Set<string>();
  const objects = Object.values(schema.getTypeMap()).filter(isObjectType);
  // To a fixed point: a type calls when one of its fields does, or leads to a type that does.
  for (let grew = true; grew; ) {
    grew = false;
    for (const type of objects) {
      if (found.has(type.name)) continue;
      const calls = Object.values(type.getFields()).some((f) => `${type.name}.${f.name}` in CALLS || found.has(getNamedType(f.type).name));
      if (calls) {
        found.add(type.name);
        grew = true;
      }
    }
  }
  calling = found;
  callingTypes.set(schema, calling);
  return calling;
}

function countCalls(selectionSet: SelectionSetNode, parent: GraphQLObjectType, multiplier: number, walk: Walk): number {
  let total = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FRAGMENT_SPREAD) {
      const fragment = walk.fragments.get(selection.name.value);
      if (fragment) total += countCalls(fragment.selectionSet, parent, multiplier, walk);
      continue;
    }
    if (selection.kind === Kind.INLINE_FRAGMENT) {
      total += countCalls(selection.selectionSet, parent, multiplier, walk);
      continue;
    }
    const field = parent.getFields()[selection.name.value];
    if (!field) continue;
    const key = `${parent.name}.${field.name}`;
    total += multiplier * (CALLS[key] ?? 0);
    const child = getNamedType(field.type);
    if (selection.selectionSet && isObjectType(child) && walk.calling.has(child.name)) {
      const items = PAGED.has(key) ? perPageOf(selection.arguments ?? [], walk.variables) : 1;
      total += countCalls(selection.selectionSet, child, multiplier * items, walk);
    }
  }
  return total;
}

function perPageOf(args: ReadonlyArray<{ name: { value: string }; value: Parameters<typeof valueFromAST>[0] }>, variables: Record<string, unknown>): number {
  const node = args.find((a) => a.name.value === 'perPage');
  const value = node ? valueFromAST(node.value, GraphQLInt, variables) : undefined;
  return typeof value === 'number' && value > 0 ? value : DEFAULT_PER_PAGE;
}
