import { z } from 'zod';

type Path = readonly string[];

/** What a probed field carries: a string survives the mappers' renames, `replace`s and `Number()`s (as NaN) alike. */
const marker = (path: Path): string => `~${path.join('.')}~`;

/**
 * Which GraphQL input path each upstream request field comes from, e.g. `revenue_center_id` → `input.revenueCenterId`
 * and `customer.first_name` → `input.customer.firstName`: read off the input mapper itself, not kept by hand. Each
 * argument of `args` that is an object piped into a transform (the mappers of src/inputs/) is probed: the transform
 * runs on an input with every field set, then once without each field in turn, and the upstream field whose value
 * changes is the one that input field maps to (when leaving a required field out makes the mapper throw, the field
 * is found by its value instead). A field that maps to no single upstream field is left out.
 */
export function upstreamFieldPaths(args: z.ZodObject): ReadonlyMap<string, string> {
  const paths = new Map<string, string>();
  for (const [argument, schema] of Object.entries(args.shape)) {
    if (!(schema instanceof z.ZodPipe) || !(schema.out instanceof z.ZodTransform)) continue;
    const input = objectOf(schema.in);
    if (!input) continue;
    const transform = schema.out.def.transform as (value: unknown, payload: unknown) => unknown;
    const run = (leaves: readonly Path[]): Map<string, unknown> | undefined => {
      const value = inputWith(leaves);
      try {
        return outputLeaves(transform(value, { value, issues: [] }));
      } catch {
        return undefined;
      }
    };
    const leaves = leavesOf(input, []);
    const full = run(leaves);
    if (!full) continue;
    for (const leaf of leaves) {
      const upstream = mappedTo(leaf, full, run(leaves.filter((l) => l !== leaf)));
      if (upstream === undefined) continue;
      paths.set(upstream, [argument, ...leaf].join('.'));
      // The parents too (`customer` names the inline customer as a whole), when the nesting matches.
      const up = upstream.split('.');
      for (let depth = 1; depth < up.length && depth < leaf.length; depth++) {
        const key = up.slice(0, depth).join('.');
        if (!paths.has(key)) paths.set(key, [argument, ...leaf.slice(0, depth + leaf.length - up.length)].join('.'));
      }
    }
  }
  return paths;
}

/** The one upstream field that changes without `leaf`, or (when the mapper cannot run without it) that carries its marker. */
function mappedTo(leaf: Path, full: ReadonlyMap<string, unknown>, without: ReadonlyMap<string, unknown> | undefined): string | undefined {
  const changed = without
    ? [...full].filter(([key, value]) => !Object.is(value, without.get(key))).map(([key]) => key)
    : [...full].filter(([, value]) => typeof value === 'string' && value.includes(marker(leaf))).map(([key]) => key);
  return changed.length === 1 ? changed[0] : undefined;
}

/** The object under optional, nullable, refinements and `opt()`'s own pipe; undefined when it is not one. */
function objectOf(schema: unknown): z.ZodObject | undefined {
  let current = schema;
  for (let i = 0; i < 8; i++) {
    if (current instanceof z.ZodObject) return current;
    if (current instanceof z.ZodPipe) current = current.in;
    else if (current instanceof z.ZodOptional || current instanceof z.ZodNullable) current = current.unwrap();
    else return undefined;
  }
  return undefined;
}

/** Input paths of the fields a mapper reads: nested objects are followed, lists and scalars are leaves. */
function leavesOf(object: z.ZodObject, prefix: Path): Path[] {
  return Object.entries(object.shape).flatMap(([key, schema]) => {
    const nested = objectOf(schema);
    return nested ? leavesOf(nested, [...prefix, key]) : [[...prefix, key]];
  });
}

/** An input holding the given fields, each set to its marker. */
function inputWith(leaves: readonly Path[]): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const leaf of leaves) {
    let node = input;
    for (const key of leaf.slice(0, -1)) node = (node[key] ??= {}) as Record<string, unknown>;
    node[leaf[leaf.length - 1]] = marker(leaf);
  }
  return input;
}

/** The defined values of the mapper's output by dotted path; a list or scalar is a leaf. */
function outputLeaves(value: unknown, prefix: Path = [], into = new Map<string, unknown>()): Map<string, unknown> {
  if (value === undefined) return into;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    if (prefix.length > 0) into.set(prefix.join('.'), value);
    return into;
  }
  for (const [key, inner] of Object.entries(value)) outputLeaves(inner, [...prefix, key], into);
  return into;
}
