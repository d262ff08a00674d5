import { BREAK, Kind, parse, visit, type GraphQLError, type ValueNode } from 'graphql';

type Path = Array<string | number>;

/** graphql-js's messages for a variable it cannot coerce: `Variable "$in" got invalid value … at "in.amount"; <reason>`, or a missing one. */
const VARIABLE_ERROR = /^Variable "\$([^"]+)" (?:got invalid value .*?(?: at "([^"]+)")?; (.*)|of (?:required|non-null) type )/s;

/** Reasons that name an input field below the reported path: one that is missing, or one the type does not define. */
const NAMED_FIELD = /^Field "([^"]+)" (?:of required type "[^"]*" was not provided|is not defined by type )/;

/**
 * The input path of the value a scalar or graphql-js refused, named by the operation's arguments (`input.tableIds[1]`):
 * a variable is traced to the argument it feeds, a literal found by its position. Only on this error path, so the
 * re-parse costs nothing on success.
 */
export function fieldPathOf(error: GraphQLError): string | undefined {
  const body = error.source?.body;
  const variable = VARIABLE_ERROR.exec(error.message);
  if (variable) {
    const [, name, at, reason] = variable;
    const named = reason ? NAMED_FIELD.exec(reason)?.[1] : undefined;
    const inside = (at ? at.slice(name.length) : '') + (named ? `.${named}` : '');
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

/** A path as the messages write it: `input.items[2].amount`. */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`)).join('');
}
