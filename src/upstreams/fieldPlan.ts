import { z } from 'zod';

export type Shape = z.core.$ZodShape;
export type AnyObject = z.ZodObject<Shape, z.core.$ZodObjectConfig>;

/** The same verdict as a zod schema, without its per-call allocations: the reason a value fails, or undefined. */
export type FastCheck = (value: unknown) => string | undefined;

const fastChecks = new WeakMap<z.ZodType, FastCheck>();

/** A hand-written check of the schema's meaning for hot primitives (UUIDs, money, dates); tests hold both to one verdict. */
export function withFastCheck<T extends z.ZodType>(schema: T, check: FastCheck): T {
  fastChecks.set(schema, check);
  return schema;
}

export type FieldPlan =
  | { kind: 'leaf'; schema: z.ZodType; nullable: boolean; expected: string }
  | { kind: 'fast'; check: FastCheck; nullable: boolean; expected: string }
  /** A plain `z.string()` or `z.boolean()`: its whole check is the JSON type, so zod is not called. */
  | { kind: 'typeof'; type: 'string' | 'boolean'; nullable: boolean; expected: string }
  /** A nested object, or a list of them: read as records of `plans` (whose table holds their schema). */
  | { kind: 'object'; plans: PlanTable; nullable: boolean; expected: string }
  | { kind: 'list'; plans: PlanTable; nullable: boolean; expected: string };

/** How each field of one object schema is read, each plan made on the field's first read. */
export interface PlanTable {
  schema: AnyObject;
  /** Whether the schema has an `id`, which its records cannot go without. */
  hasId: boolean;
  byKey: Map<string, FieldPlan>;
}

/** Schemas are module constants, so this never grows per request. */
const tables = new WeakMap<object, PlanTable>();

let newTableListener: (keys: readonly string[]) => void = () => undefined;

/** Told the keys of each schema when its table is made (record.ts defines its getters). */
export function onNewTable(listener: (keys: readonly string[]) => void): void {
  newTableListener = listener;
}

export function tableFor(schema: AnyObject): PlanTable {
  let table = tables.get(schema);
  if (!table) {
    newTableListener(Object.keys(schema.shape));
    tables.set(schema, (table = { schema, hasId: 'id' in schema.shape, byKey: new Map() }));
  }
  return table;
}

export function planOf(table: PlanTable, key: string): FieldPlan {
  const plan = buildPlan(table.schema, key);
  table.byKey.set(key, plan);
  return plan;
}

function buildPlan(schema: AnyObject, key: string): FieldPlan {
  const declared = schema.shape[key];
  if (!declared) throw new Error(`no upstream field ${key} is declared`);
  const nullable = declared instanceof z.ZodNullable;
  const inner = (nullable ? (declared as z.ZodNullable<z.ZodType>).unwrap() : declared) as z.ZodType;
  if (inner instanceof z.ZodObject) return { kind: 'object', plans: tableFor(inner), nullable, expected: 'an object' };
  if (inner instanceof z.ZodArray && inner.element instanceof z.ZodObject) {
    return { kind: 'list', plans: tableFor(inner.element), nullable, expected: 'an array of objects' };
  }
  const expected = inner.description ?? expectedOf(inner);
  const fast = fastChecks.get(inner);
  if (fast) return { kind: 'fast', check: fast, nullable, expected };
  if (inner instanceof z.ZodBoolean) return { kind: 'typeof', type: 'boolean', nullable, expected };
  if (inner instanceof z.ZodString && (inner.def.checks ?? []).length === 0) return { kind: 'typeof', type: 'string', nullable, expected };
  return { kind: 'leaf', schema: inner, nullable, expected };
}

function expectedOf(schema: z.ZodType): string {
  if (schema instanceof z.ZodString) return 'a string';
  if (schema instanceof z.ZodNumber) return 'a number';
  if (schema instanceof z.ZodBoolean) return 'a boolean';
  if (schema instanceof z.ZodArray) return 'an array';
  if (schema instanceof z.ZodRecord || schema instanceof z.ZodObject) return 'an object';
  return 'a value of the documented type';
}

/** A reason the schema names (`invalid_date`), else the JSON type of what came (of the element, inside a list). */
export function receivedOf(value: unknown, issue: z.core.$ZodIssue | undefined): string {
  if (issue && REASON.test(issue.message)) return issue.message;
  let at: unknown = value;
  for (const step of issue?.path ?? []) at = isPlainObject(at) || Array.isArray(at) ? (at as Record<PropertyKey, unknown>)[step] : undefined;
  return jsonType(at);
}

const REASON = /^[a-z]+(_[a-z]+)+$/;

/** The JSON type of a parsed value, as JSON names it (`array` and `null` apart from `object`). */
export function jsonType(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
