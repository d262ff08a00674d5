/** JSON types of request fields, as the upstream documents give them. */
export type FieldKind = 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'string[]' | 'integer[]' | 'object[]';

export type BodySpec = Readonly<Record<string, FieldKind>>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Absent and null both mean "not given": the documents do not say which fields are required. */
export function given(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/** A message naming the first field of the wrong JSON type, or undefined when all given fields fit the spec. */
export function findTypeError(body: Record<string, unknown>, spec: BodySpec): string | undefined {
  for (const [field, kind] of Object.entries(spec)) {
    const value = body[field];
    if (given(value) && !fits(value, kind)) return `${field} must be ${describe(kind)}`;
  }
  return undefined;
}

function fits(value: unknown, kind: FieldKind): boolean {
  switch (kind) {
    case 'string': return typeof value === 'string';
    case 'integer': return Number.isInteger(value);
    case 'number': return typeof value === 'number' && Number.isFinite(value);
    case 'boolean': return typeof value === 'boolean';
    case 'object': return isRecord(value);
    case 'string[]': return Array.isArray(value) && value.every((v) => typeof v === 'string');
    case 'integer[]': return Array.isArray(value) && value.every((v) => Number.isInteger(v));
    case 'object[]': return Array.isArray(value) && value.every(isRecord);
  }
}

function describe(kind: FieldKind): string {
  return kind.endsWith('[]') ? `an array of ${kind.slice(0, -2)}s` : `${kind === 'integer' || kind === 'object' ? 'an' : 'a'} ${kind}`;
}
