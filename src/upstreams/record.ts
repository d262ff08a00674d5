import { z } from 'zod';
import { UpstreamError, type ServiceName } from '../errors/UpstreamError';
import { isPlainObject, jsonType, onNewTable, planOf, receivedOf, tableFor, type FieldPlan, type PlanTable, type Shape } from './fieldPlan';

export type { Shape } from './fieldPlan';
export { jsonType } from './fieldPlan';

/**
 * An upstream record read field by field (STYLE.md habit 10). The zod schema of a record stays its one declaration,
 * but is applied to one field at a time, when a resolver reads that field: a value that breaks its field's schema
 * fails that field alone (UPSTREAM_BAD_RESPONSE at its GraphQL path, naming the upstream field and the JSON type that
 * came, never the value), and a field nobody selected is never looked at. A record is refused whole only when it is
 * unusable: not an object, or without a usable `id` when its schema has one.
 */

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

/** What a record reader is given for a body that is not JSON at all (src/upstreams/answer.ts). */
export const NOT_JSON: unique symbol = Symbol('not JSON');

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

export class UpstreamRecord<S extends Shape> {
  // Members are named with a `$`, which no GraphQL field name can hold, so no getter (below) can ever hide one.
  // Plain properties, `declare`d and set in one constructor shared by every record, which V8 keeps fast: records
  // are made by the thousand per request (`#private` fields, class fields or a class per schema were measurably slower).
  protected declare readonly $table: PlanTable;
  protected declare readonly $raw: Readonly<Record<string, unknown>>;
  protected declare readonly $origin: RecordOrigin;
  /** Where this record sits in the body (none for the body itself), for paths such as `check_items.notes`. */
  protected declare readonly $parent: UpstreamRecord<Shape> | undefined;
  protected declare readonly $key: string;
  /**
   * Each field's answer once read (value or UpstreamError), made on the first read: graphql-jit evaluates a field
   * without a resolver several times over (`x.f == null`, `x.f instanceof Error`, then `x.f`), and a field must be
   * checked, and a deviation counted, once per record.
   */
  protected declare $read: Record<string, unknown> | undefined;

  private constructor(table: PlanTable, raw: Readonly<Record<string, unknown>>, origin: RecordOrigin, parent: UpstreamRecord<Shape> | undefined, key: string) {
    this.$table = table;
    this.$raw = raw;
    this.$origin = origin;
    this.$parent = parent;
    this.$key = key;
    this.$read = undefined;
  }

  /**
   * A whole answer body as a record: refused (UPSTREAM_BAD_RESPONSE for the field that loads it) when it is not an
   * object or, for a schema with an `id`, has no usable one. Nothing else is checked here.
   */
  static of<S extends Shape>(schema: z.ZodObject<S, z.core.$ZodObjectConfig>, body: unknown, origin: RecordOrigin): UpstreamRecord<S> {
    if (body === NOT_JSON) throw refusal(origin, '(body)', 'not_json', 'the body', 'JSON');
    if (!isPlainObject(body)) throw refusal(origin, '(body)', jsonType(body), 'the body', 'an object');
    const record = new UpstreamRecord<S>(tableFor(schema), body, origin, undefined, '');
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
    this.$report(key, received);
    return fieldError(this.$origin, this.$path(key), received, expected);
  }

  /**
   * Getters for a schema's fields, named as their GraphQL fields (the key in camelCase), so the executor reads
   * `record.firstName` with no resolver call. A getter answers the value, or the field's UpstreamError, which
   * graphql-js and graphql-jit alike report at that field's path. One prototype serves every schema: a name is the
   * same key in each, and a record only ever gets asked the fields of its GraphQL type (test/schema/coverage.test.ts).
   */
  static $defineGetters(keys: readonly string[]): void {
    const prototype = UpstreamRecord.prototype;
    for (const key of keys) {
      const name = key.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
      if (Object.prototype.hasOwnProperty.call(prototype, name)) {
        if (getterKeys.get(name) === key) continue;
        throw new Error(`upstream field ${key} would hide UpstreamRecord.${name}`);
      }
      getterKeys.set(name, key);
      Object.defineProperty(prototype, name, {
        get(this: UpstreamRecord<Shape>) {
          return this.$value(key);
        },
      });
    }
  }

  /** The field's value when it passes its reading, else its UpstreamError (reported once); never undefined. */
  protected $value(key: string): unknown {
    const read = this.$read;
    if (read !== undefined) {
      const known = read[key];
      if (known !== undefined) return known;
    }
    // Most fields are a string, a boolean or a value with a hand-written check that passes: their value is the raw
    // one, checked again on each read at less cost than remembering it. What fails, and what a schema transforms or
    // nests, is read once and remembered, so a deviation is reported once per record.
    const raw = this.$raw[key];
    const plan = this.$table.byKey.get(key);
    if (raw !== undefined && raw !== null && plan !== undefined) {
      if (plan.kind === 'typeof' ? typeof raw === plan.type : plan.kind === 'fast' && plan.check(raw) === undefined) return raw;
    }
    const value = this.$check(key, raw, plan ?? planOf(this.$table, key));
    (this.$read ??= {})[key] = value;
    return value;
  }

  /** Reads `value` by `plan`, the field's plan (built by the caller on the field's first read). */
  protected $check(key: string, value: unknown, plan: FieldPlan): unknown {
    if (value === undefined || value === null) {
      if (!plan.nullable) return this.deviation(key, jsonType(value), plan.expected);
      // Null is a reading the schema allows; a missing key is not, but it is served as the null it stands for.
      if (value === undefined) this.$report(key, 'missing');
      return null;
    }
    switch (plan.kind) {
      case 'typeof':
        return typeof value === plan.type ? value : this.deviation(key, jsonType(value), plan.expected);
      case 'fast': {
        const reason = plan.check(value);
        return reason === undefined ? value : this.deviation(key, reason, plan.expected);
      }
      case 'leaf': {
        const parsed = plan.schema.safeParse(value);
        return parsed.success ? parsed.data : this.deviation(key, receivedOf(value, parsed.error.issues[0]), plan.expected);
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

  protected $report(key: string, received: string): void {
    const { service, route } = this.$origin;
    this.$origin.deviations.report({ service, route, field: this.$path(key), received });
  }

  /** The upstream path of field `key` of this record, without list indexes: `check_items.summary.total_amount`. */
  protected $path(key: string): string {
    return this.$parent ? `${this.$parent.$path(this.$key)}.${key}` : key;
  }

  protected $nested(table: PlanTable, key: string, value: unknown): UpstreamRecord<Shape> | UpstreamError {
    if (!isPlainObject(value)) return this.deviation(key, jsonType(value), 'an object');
    const record = new UpstreamRecord<Shape>(table, value, this.$origin, this, key);
    return record.$requireId() ?? record;
  }

  /** A record (or nested object) whose schema has an `id` is unusable without one: clients normalise by it. */
  protected $requireId(): UpstreamError | undefined {
    if (!this.$table.hasId) return undefined;
    const id = this.$value('id');
    return id instanceof UpstreamError ? id : undefined;
  }
}

/** Which upstream key each getter reads (a name is defined once for every schema). */
const getterKeys = new Map<string, string>();

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

// Every schema's fields get their getters when the schema is first read.
onNewTable((keys) => UpstreamRecord.$defineGetters(keys));
