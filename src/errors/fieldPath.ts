import { BREAK, Kind, parse, visit, type GraphQLError, type ValueNode } from 'graphql';

/**
 * The input path of the value a scalar refused, e.g. `input.amount` or `input.tableIds[1]`.
 * Variables: graphql-js names it in the message (`… at "input.amount"`). Literals: the error carries the value's
 * position, which is looked up among the document's arguments (only on this error path, so the re-parse is cheap).
 */
export function fieldPathOf(error: GraphQLError): string | undefined {
  const variable = /^Variable "\$([^"]+)" got invalid value .*? at "([^"]+)"/s.exec(error.message);
  if (variable) return variable[2];
  const bare = /^Variable "\$([^"]+)" got invalid value/.exec(error.message);
  if (bare) return bare[1];
  const offset = error.nodes?.[0]?.loc?.start;
  const body = error.source?.body;
  return offset !== undefined && body ? literalPath(body, offset) : undefined;
}

function literalPath(body: string, offset: number): string | undefined {
  let found: string | undefined;
  try {
    visit(parse(body, { noLocation: false }), {
      Argument(node) {
        const path = pathTo(node.value, [node.name.value], offset);
        if (path) {
          found = formatPath(path);
          return BREAK;
        }
        return undefined;
      },
    });
  } catch {
    return undefined;
  }
  return found;
}

function pathTo(value: ValueNode, path: Array<string | number>, offset: number): Array<string | number> | undefined {
  if (value.loc?.start === offset) return path;
  if (value.kind === Kind.OBJECT) {
    for (const field of value.fields) {
      const found = pathTo(field.value, [...path, field.name.value], offset);
      if (found) return found;
    }
  }
  if (value.kind === Kind.LIST) {
    for (const [i, item] of value.values.entries()) {
      const found = pathTo(item, [...path, i], offset);
      if (found) return found;
    }
  }
  return undefined;
}

function formatPath(path: Array<string | number>): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}
