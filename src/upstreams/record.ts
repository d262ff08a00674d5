import { z } from 'zod';
import { UpstreamError, type ServiceName } from '../errors';

/**
 * An upstream record read field by field (STYLE.md habit 10). The zod schema of a record stays its one declaration,
 * but is applied to one field at a time, when a resolver reads that field: a value that breaks its field's schema
 * fails that field alone (UPSTREAM_BAD_RESPONSE at its GraphQL path, naming the upstream field and the JSON type that
 * came, never the value), and a field nobody selected is never looked at. A record is refused whole only when it is
 * unusable: not an object, or without a usable `id` when its schema has one.
 */

export type Shape = z.core.$ZodShape;
type AnyObject = z.ZodObject<Shape, z.core.$ZodObjectConfig>;

/** One way an upstream answer differs from the gateway's reading of the documents. */
export interface Deviation {
  service: ServiceName;
  /** The call's route template, e.g. `/checks/:id`. */
  route: string;
  /** The upstream field path without list indexes, e.g. `check_items.summary.total_amount`; `(body)` for the body. */
  field: string;
  /** A JSON type name (`string`, `null`, `missing`, …) or a reason such as `invalid_date`; never the value. */
  received: string;
}

/** Where deviations are counted and logged (src/observability/deviations.ts). */
export interface DeviationSink {
  report(deviation: Deviation): void;
}

/** The answer a record came in. */
export interface RecordOrigin {
  service: ServiceName;
  route: string;
  status: number;
  deviations: DeviationSink;
}

type Unwrapped<F> = F extends z.ZodNullable<infer I> ? I : F;
type OrNull<F, T> = F extends z.ZodNullable<z.ZodType> ? T | null : T;

/**
 * What `read` gives for a field of schema F: a nested object is a record of its own, a list of objects a list of
 * records (an element that cannot be used is an UpstreamError in its slot, which GraphQL reports at the element's
 * path), anything else the schema's output. Null only where the schema allows null.
 */
export type Read<F> =
  Unwrapped<F> extends z.ZodObject<infer S, z.core.$ZodObjectConfig>
    ? OrNull<F, UpstreamRecord<S>>
    : Unwrapped<F> extends z.ZodArray<z.ZodObject<infer S, z.core.$ZodObjectConfig>>
      ? OrNull<F, Array<UpstreamRecord<S> | UpstreamError>>
      : z.output<F>;

/** The record type of an object schema: what a codegen mapper points at. */
export type RecordOf<T> = T extends z.ZodObject<infer S, z.core.$ZodObjectConfig> ? UpstreamRecord<S> : never;

type FieldPlan =
  | { kind: 'leaf'; schema: z.ZodType; nullable: boolean; expected: string }
  /** A plain `z.string()` or `z.boolean()`: its whole check is the JSON type, so zod is not called. */
  | { kind: 'typeof'; type: 'string' | 'boolean'; nullable: boolean; expected: string }
  | { kind: 'object'; schema: AnyObject; plans: PlanTable; nullable: boolean; expected: string }
  | { kind: 'list'; schema: AnyObject; plans: PlanTable; nullable: boolean; expected: string };

/** The plans of one object schema's fields, filled in on first read of each. */
interface PlanTable {
  schema: AnyObject;
  byKey: Map<string, FieldPlan>;
}

/** Where a nested record sits in its parent, for field paths (built only when a deviation names one). */
interface Place {
  parent: UpstreamRecord<Shape>;
  key: string;
}

export class UpstreamRecord<S extends Shape> {
  private constructor(
    private readonly plans: PlanTable,
    private readonly raw: Readonly<Record<string, unknown>>,
    private readonly origin: RecordOrigin,
    /** This record's place in the body (none for the body itself), for field paths such as `check_items.notes`. */
    private readonly place: Place | undefined,
  ) {}

  /**
   * A whole answer body as a record: refused (UPSTREAM_BAD_RESPONSE for the field that loads it) when it is not an
   * object or, for a schema with an `id`, has no usable one. Nothing else is checked here.
   */
  static of<S extends Shape>(schema: z.ZodObject<S, z.core.$ZodObjectConfig>, body: unknown, origin: RecordOrigin): UpstreamRecord<S> {
    if (!isPlainObject(body)) throw refusal(origin, '(body)', jsonType(body), 'the body', 'an object');
    const record = new UpstreamRecord<S>(plansFor(schema), body, origin, undefined);
    record.requireId();
    return record;
  }

  /** The field `key`, checked against its schema now; throws the field's UPSTREAM_BAD_RESPONSE when it breaks it. */
  read<K extends keyof S & string>(key: K): Read<S[K]> {
    return this.readKey(key) as Read<S[K]>;
  }

  /**
   * `read` for a key known only at run time (the executable schema's default resolvers, which name the upstream key
   * by the GraphQL field's name). A key the schema does not declare is the gateway's own bug.
   */
  readKey(key: string): unknown {
    const plan = this.plans.byKey.get(key) ?? planOf(this.plans, key);
    const value = this.raw[key];
    if (value === undefined || value === null) {
      const received = value === undefined ? 'missing' : 'null';
      if (plan.nullable) {
        // Null is a reading the schema allows; a missing key is not, but it is served as the null it stands for.
        if (value === undefined) this.report(key, received);
        return null;
      }
      throw this.deviation(key, received, plan.expected);
    }
    switch (plan.kind) {
      case 'typeof':
        if (typeof value === plan.type) return value;
        throw this.deviation(key, jsonType(value), plan.expected);
      case 'leaf': {
        const parsed = plan.schema.safeParse(value);
        if (parsed.success) return parsed.data;
        throw this.deviation(key, receivedOf(value, parsed.error.issues[0]), plan.expected);
      }
      case 'object':
        return this.nested(plan.plans, key, value);
      case 'list': {
        if (!Array.isArray(value)) throw this.deviation(key, jsonType(value), plan.expected);
        return value.map((element: unknown) => {
          try {
            return this.nested(plan.plans, key, element);
          } catch (err) {
            return err as UpstreamError;
          }
        });
      }
    }
  }

  /** Reports that field `key` (read by the caller) broke its reading, and gives the error to throw at its path. */
  deviation(key: string, received: string, expected: string): UpstreamError {
    const field = this.path(key);
    this.report(key, received);
    return fieldError(this.origin, field, received, expected);
  }

  private report(key: string, received: string): void {
    const { service, route } = this.origin;
    this.origin.deviations.report({ service, route, field: this.path(key), received });
  }

  /** The upstream path of field `key` of this record, without list indexes: `check_items.summary.total_amount`. */
  private path(key: string): string {
    return this.place ? `${this.place.parent.path(this.place.key)}.${key}` : key;
  }

  private nested(plans: PlanTable, key: string, value: unknown): UpstreamRecord<Shape> {
    if (!isPlainObject(value)) throw this.deviation(key, jsonType(value), 'an object');
    const record = new UpstreamRecord<Shape>(plans, value, this.origin, { parent: this, key });
    record.requireId();
    return record;
  }

  /** A record (or nested object) whose schema has an `id` is unusable without one: clients normalise by it. */
  private requireId(): void {
    if ('id' in this.plans.schema.shape) this.readKey('id');
  }
}

/** The error of a whole answer that cannot be used; it is counted like any other deviation. */
function refusal(origin: RecordOrigin, field: string, received: string, what: string, expected: string): UpstreamError {
  origin.deviations.report({ service: origin.service, route: origin.route, field, received });
  return new UpstreamError(origin.service, 'bad_response', {
    status: origin.status,
    detail: `${what}: expected ${expected}, received ${received}`,
    deviation: { field, received },
  });
}

function fieldError(origin: RecordOrigin, field: string, received: string, expected: string): UpstreamError {
  return new UpstreamError(origin.service, 'bad_response', {
    status: origin.status,
    detail: `field ${field}: expected ${expected}, received ${received}`,
    deviation: { field, received },
  });
}

/** Plan tables per schema, built once: schemas are module constants, so this never grows per request. */
const tables = new WeakMap<object, PlanTable>();

function plansFor(schema: AnyObject): PlanTable {
  let table = tables.get(schema);
  if (!table) tables.set(schema, (table = { schema, byKey: new Map() }));
  return table;
}

function planOf(table: PlanTable, key: string): FieldPlan {
  const plan = buildPlan(table.schema, key);
  table.byKey.set(key, plan);
  return plan;
}

function buildPlan(schema: AnyObject, key: string): FieldPlan {
  const declared = schema.shape[key];
  if (!declared) throw new Error(`no upstream field ${key} is declared`);
  const nullable = declared instanceof z.ZodNullable;
  const inner = (nullable ? (declared as z.ZodNullable<z.ZodType>).unwrap() : declared) as z.ZodType;
  if (inner instanceof z.ZodObject) return { kind: 'object', schema: inner as AnyObject, plans: plansFor(inner as AnyObject), nullable, expected: 'an object' };
  if (inner instanceof z.ZodArray && inner.element instanceof z.ZodObject) {
    const element = inner.element as AnyObject;
    return { kind: 'list', schema: element, plans: plansFor(element), nullable, expected: 'an array of objects' };
  }
  const expected = inner.description ?? expectedOf(inner);
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
function receivedOf(value: unknown, issue: z.core.$ZodIssue | undefined): string {
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

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
