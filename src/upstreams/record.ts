import { z } from 'zod';
import { UpstreamError, type ServiceName } from '../errors/UpstreamError';
import { camelCase } from '../naming';

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

/** A value that failed a field's reading, with the reason zod named. */
export class FastRefusal {
  constructor(readonly reason: string) {}
}

/**
 * A usable value's reading: the same output as the transforming zod schema, or undefined for any value it does not
 * take, which zod then reads (so a refusal is worded by zod alone); tests hold both to one result.
 */
export type FastRead = (value: unknown) => unknown;

const fastReads = new WeakMap<z.ZodType, FastRead>();

/** A hand-written reading for hot converted fields (POS timestamps as DateTimes), remembered like zod's output. */
export function withFastRead<T extends z.ZodType>(schema: T, read: FastRead): T {
  fastReads.set(schema, read);
  return schema;
}

export type FieldPlan =
  /** A FastRead with zod's reading behind it, or zod's reading alone for a field without one. */
  | { kind: 'read'; read: FastRead; nullable: boolean; expected: string }
  | { kind: 'fast'; check: FastCheck; nullable: boolean; expected: string }
  /** A plain `z.string()` or `z.boolean()`: its whole check is the JSON type, so zod is not called. */
  | { kind: 'typeof'; type: 'string' | 'boolean'; nullable: boolean; expected: string }
  /** A nested object, or a list of them: read as records of `plans` (whose table holds their schema). */
  | { kind: 'object'; plans: PlanTable; nullable: boolean; expected: string }
  | { kind: 'list'; plans: PlanTable; nullable: boolean; expected: string };

/** How each field of one object schema is read, and the class of its records. */
export interface PlanTable {
  schema: AnyObject;
  /** Whether the schema has an `id`, which its records cannot go without. */
  hasId: boolean;
  byKey: Map<string, FieldPlan>;
  /** Each upstream key's getter, by its GraphQL name (`first_name` → `firstName`). */
  names: Map<string, string>;
  /** Records of this schema: its getters read each key by name (see `recordClass`). */
  Record: RecordClass;
}

type RecordClass = new (
  table: PlanTable,
  raw: Readonly<Record<string, unknown>>,
  origin: RecordOrigin,
  parent: UpstreamRecord<Shape> | undefined,
  key: string,
) => UpstreamRecord<Shape>;

/** A table's class until it is made (a schema's fields are planned first). */
const PENDING: RecordClass = class {
  constructor() {
    throw new Error('a record of a schema whose table is being made');
  }
} as unknown as RecordClass;

/** Schemas are module constants, so this never grows per request. */
const tables = new WeakMap<object, PlanTable>();

/** The schema's plans and record class, made when the schema is first read (never per request). */
export function tableFor(schema: AnyObject): PlanTable {
  let table = tables.get(schema);
  if (!table) {
    const keys = Object.keys(schema.shape);
    table = { schema, hasId: 'id' in schema.shape, byKey: new Map(), names: new Map(), Record: PENDING };
    tables.set(schema, table); // first, so that a schema reached again through its own fields finds it
    try {
      for (const key of keys) table.byKey.set(key, buildPlan(schema, key));
      table.Record = recordClass(table, keys);
    } catch (err) {
      tables.delete(schema); // the next read meets the same error, not a half-made table
      throw err;
    }
  }
  return table;
}

export function planOf(table: PlanTable, key: string): FieldPlan {
  const plan = table.byKey.get(key);
  if (!plan) throw new Error(`no upstream field ${key} is declared`);
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
  const fastRead = fastReads.get(inner);
  if (fastRead) return { kind: 'read', read: (value) => fastRead(value) ?? zodRead(inner, value), nullable, expected };
  if (inner instanceof z.ZodBoolean) return { kind: 'typeof', type: 'boolean', nullable, expected };
  if (inner instanceof z.ZodString && (inner.def.checks ?? []).length === 0) return { kind: 'typeof', type: 'string', nullable, expected };
  return { kind: 'read', read: (value) => zodRead(inner, value), nullable, expected };
}

/** zod's reading of `value`: its output, or a refusal naming the reason `receivedOf` finds in its first issue. */
function zodRead(schema: z.ZodType, value: unknown): unknown {
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : new FastRefusal(receivedOf(value, parsed.error.issues[0]));
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

/** Where deviations are counted and logged. */
export interface DeviationSink {
  report(deviation: Deviation): void;
}

/** What a record reader is given for a body that is not JSON at all. */
export const NOT_JSON: unique symbol = Symbol('not JSON');

/** The answer a record came in. */
export interface RecordOrigin extends Pick<Deviation, 'service' | 'route'> {
  status: number;
  /** None outside a GraphQL request (unit tests): nowhere to count them. */
  deviations?: DeviationSink;
}

type Unwrapped<F> = F extends z.ZodNullable<infer I> ? I : F;
type OrNull<F, T> = F extends z.ZodNullable<z.ZodType> ? T | null : T;

/** What `read` gives for a field of schema F: nested objects as records (an unusable element as its error). */
export type Read<F> =
  Unwrapped<F> extends z.ZodObject<infer S, z.core.$ZodObjectConfig>
    ? OrNull<F, UpstreamRecord<S>>
    : Unwrapped<F> extends z.ZodArray<z.ZodObject<infer S, z.core.$ZodObjectConfig>>
      ? OrNull<F, Array<UpstreamRecord<S> | UpstreamError>>
      : z.output<F>;

/** The record type of an object schema: what a codegen mapper points at. */
export type RecordOf<T> = T extends z.ZodObject<infer S, z.core.$ZodObjectConfig> ? UpstreamRecord<S> : never;

/**
 * An upstream record whose fields are checked against their schema one at a time, when read: a bad value fails its
 * field alone, never the record (refused whole only when not an object or without a usable `id`).
 */
export class UpstreamRecord<S extends Shape> {
  // `$` names cannot be GraphQL field names, so no getter hides a member. Plain `declare`d properties set in one
  // constructor (and a schema's slots in its class's) keep a schema's records, made by the thousand, in one V8 shape.
  protected declare readonly $table: PlanTable;
  protected declare readonly $raw: Readonly<Record<string, unknown>>;
  protected declare readonly $origin: RecordOrigin;
  /** Where this record sits in the body (none for the body itself), for paths such as `check_items.notes`. */
  protected declare readonly $parent: UpstreamRecord<Shape> | undefined;
  protected declare readonly $key: string;
  /** Fields that failed their check, remembered: graphql-jit reads a field several times, and a deviation counts once. */
  protected declare $read: Record<string, unknown> | undefined;

  protected constructor(table: PlanTable, raw: Readonly<Record<string, unknown>>, origin: RecordOrigin, parent: UpstreamRecord<Shape> | undefined, key: string) {
    this.$table = table;
    this.$raw = raw;
    this.$origin = origin;
    this.$parent = parent;
    this.$key = key;
    this.$read = undefined;
  }

  /** A whole answer body as a record, refused when it is not an object or lacks a usable `id`. */
  static of<S extends Shape>(schema: z.ZodObject<S, z.core.$ZodObjectConfig>, body: unknown, origin: RecordOrigin): UpstreamRecord<S> {
    if (body === NOT_JSON) throw badResponse(origin, '(body)', 'the body', 'not_json', 'JSON');
    if (!isPlainObject(body)) throw badResponse(origin, '(body)', 'the body', jsonType(body), 'an object');
    const table = tableFor(schema);
    const record = new table.Record(table, body, origin, undefined, '');
    const id = record.$requireId();
    if (id) throw id;
    return record;
  }

  /** The field `key`, checked against its schema now; throws the field's UPSTREAM_BAD_RESPONSE when it breaks it. */
  read<K extends keyof S & string>(key: K): Read<S[K]> {
    const value = this.$value(key);
    if (value instanceof UpstreamError) throw value;
    return value as Read<S[K]>;
  }

  /** Reports that field `key` (read by the caller) broke its reading, and gives the error to throw at its path. */
  deviation(key: string, received: string, expected: string): UpstreamError {
    const field = this.$path(key);
    return badResponse(this.$origin, field, `field ${field}`, received, expected);
  }

  /** The field's value when it passes its reading, else its UpstreamError (reported once); never undefined. */
  protected $value(key: string): unknown {
    return (this as unknown as Record<string, unknown>)[nameOf(this.$table, key)];
  }

  /** A field whose value failed its typeof or fast check (or is missing): read once, its deviation reported once. */
  protected $failed(key: string): unknown {
    const read = (this.$read ??= {});
    const known = read[key];
    return known !== undefined ? known : (read[key] = this.$check(key, this.$raw[key], planOf(this.$table, key)));
  }

  protected $check(key: string, value: unknown, plan: FieldPlan): unknown {
    if (value === undefined || value === null) {
      if (!plan.nullable) return this.deviation(key, jsonType(value), plan.expected);
      // A missing key is reported, but served as the null it stands for.
      if (value === undefined) {
        const { service, route, deviations } = this.$origin;
        deviations?.report({ service, route, field: this.$path(key), received: 'missing' });
      }
      return null;
    }
    switch (plan.kind) {
      case 'typeof':
        return typeof value === plan.type ? value : this.deviation(key, jsonType(value), plan.expected);
      case 'fast': {
        const reason = plan.check(value);
        return reason === undefined ? value : this.deviation(key, reason, plan.expected);
      }
      case 'read': {
        const read = plan.read(value);
        return read instanceof FastRefusal ? this.deviation(key, read.reason, plan.expected) : read;
      }
      case 'object':
        return this.$nested(plan.plans, key, value);
      case 'list': {
        if (!Array.isArray(value)) return this.deviation(key, jsonType(value), plan.expected);
        const records = new Array<unknown>(value.length);
        for (let i = 0; i < value.length; i++) records[i] = this.$nested(plan.plans, key, value[i]);
        return records;
      }
    }
  }

  /** The upstream path of field `key`, without list indexes: `check_items.summary.total_amount`. */
  protected $path(key: string): string {
    return this.$parent ? `${this.$parent.$path(this.$key)}.${key}` : key;
  }

  protected $nested(table: PlanTable, key: string, value: unknown): UpstreamRecord<Shape> | UpstreamError {
    if (!isPlainObject(value)) return this.deviation(key, jsonType(value), 'an object');
    const record = new table.Record(table, value, this.$origin, this, key);
    return record.$requireId() ?? record;
  }

  /**
   * A record (or nested object) whose schema has an `id` is unusable without one: clients normalise by it. This is the
   * answer of a schema without one; the class of a schema with one checks its `id` (`recordClass`).
   */
  protected $requireId(): UpstreamError | undefined {
    return undefined;
  }
}

/** GraphQL's name rule (no `$`: no getter can be one of a record's own members or slots). */
const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

/** The getter of upstream field `key` in `table`'s records. */
function nameOf(table: PlanTable, key: string): string {
  const name = table.names.get(key);
  if (name === undefined) throw new Error(`no upstream field ${key} is declared`);
  return name;
}

/**
 * The class of `table`'s records: a getter per field, named as the GraphQL field, that reads its upstream key by name.
 * Generated (as graphql-jit generates its executors) so that each getter's property reads see one key and one shape
 * of upstream object, and V8 inlines them into the compiled query. A string or boolean that passes its typeof check is
 * served straight from the body (a failed one goes to `$failed`, which reports it once); every other field is read once
 * and remembered in a slot of its own (graphql-jit reads a field several times: a nested object once per field under
 * it, an id when the record is made and when served). Keys are the schemas' own (module constants), quoted with
 * JSON.stringify, and names are GraphQL names: nothing of a request enters the code.
 */
function recordClass(table: PlanTable, keys: readonly string[]): RecordClass {
  const params: string[] = ['Base', 'UpstreamError'];
  const args: unknown[] = [UpstreamRecord, UpstreamError];
  const slots: string[] = [];
  const members: string[] = [];
  const getters = new Map<string, string>();
  keys.forEach((key, i) => {
    const name = camelCase(key);
    if (!GRAPHQL_NAME.test(name)) throw new Error(`upstream field ${key} has no GraphQL name (${name})`);
    if (name in UpstreamRecord.prototype) throw new Error(`upstream field ${key} would hide UpstreamRecord.${name}`);
    if (getters.has(name)) throw new Error(`upstream fields ${getters.get(name)} and ${key} are both ${name}`);
    getters.set(name, key);
    table.names.set(key, name);
    const plan = planOf(table, key);
    const k = JSON.stringify(key);
    const orNull = plan.nullable ? 'if (v === null) return null; ' : '';
    const get = `get ${JSON.stringify(name)}()`;
    if (plan.kind === 'typeof') {
      members.push(`${get} { const v = this.$raw[${k}]; if (typeof v === '${plan.type}') return v; ${orNull}return this.$failed(${k}); }`);
    } else {
      params.push(`plan${i}`);
      args.push(plan);
      slots.push(`this.$m${i} = undefined;`);
      members.push(`${get} { const m = this.$m${i}; return m !== undefined ? m : (this.$m${i} = this.$check(${k}, this.$raw[${k}], plan${i})); }`);
    }
  });
  if (table.hasId) members.push(`$requireId() { const id = this.id; return id instanceof UpstreamError ? id : undefined; }`);
  const source = `return class extends Base {
  constructor(table, raw, origin, parent, key) { super(table, raw, origin, parent, key); ${slots.join(' ')} }
  ${members.join('\n  ')}
}`;
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the code is made from the schemas' own keys (above)
  const make = new Function(...params, source) as (...values: unknown[]) => RecordClass;
  return make(...args);
}

/** Reports the deviation and gives its error. */
function badResponse(origin: RecordOrigin, field: string, what: string, received: string, expected: string): UpstreamError {
  origin.deviations?.report({ service: origin.service, route: origin.route, field, received });
  return new UpstreamError(origin.service, 'bad_response', {
    status: origin.status,
    detail: `${what}: expected ${expected}, received ${received}`,
    deviation: { field, received },
  });
}
