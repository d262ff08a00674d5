import { BREAK, Kind, parse, visit, type GraphQLError, type ValueNode } from 'graphql';

type Path = Array<string | number>;

/**
 * The input path of the value a scalar refused, named by the operation's arguments: `input.amount`,
 * `input.tableIds[1]`, `date`. Variables: graphql-js names the variable and the path inside it
 * (`Variable "$in" got invalid value … at "in.amount"`), and the variable is traced to the argument it feeds.
 * Literals: the error carries the value's position, looked up among the arguments. Only on this error path, so
 * the re-parse costs nothing on success.
 */
export function fieldPathOf(error: GraphQLError): string | undefined {
  const body = error.source?.body;
  const variable = /^Variable "\$([^"]+)" got invalid value .*?(?: at "([^"]+)")?; /s.exec(error.message);
  if (variable) {
    const [, name, at] = variable;
    const inside = at ? at.slice(name!.length) : '';
    const argument = body ? findArgumentPath(body, (v) => v.kind === Kind.VARIABLE && v.name.value === name) : undefined;
    return (argument ? formatPath(argument) : name) + inside;
  }
  const offset = error.nodes?.[0]?.loc?.start;
  if (offset === undefined || !body) return undefined;
  const path = findArgumentPath(body, (v) => v.loc?.start === offset);
  return path ? formatPath(path) : undefined;
}

function findArgumentPath(body: string, match: (value: ValueNode) => boolean): Path | undefined {
  let found: Path | undefined;
  try {
    visit(parse(body), {
      Argument(node) {
        found = pathTo(node.value, [node.name.value], match);
        return found ? BREAK : undefined;
      },
    });
  } catch {
    return undefined;
  }
  return found;
}

function pathTo(value: ValueNode, path: Path, match: (value: ValueNode) => boolean): Path | undefined {
  if (match(value)) return path;
  if (value.kind === Kind.OBJECT) {
    for (const field of value.fields) {
      const found = pathTo(field.value, [...path, field.name.value], match);
      if (found) return found;
    }
  }
  if (value.kind === Kind.LIST) {
    for (const [i, item] of value.values.entries()) {
      const found = pathTo(item, [...path, i], match);
      if (found) return found;
    }
  }
  return undefined;
}

function formatPath(path: Path): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}
