import DataLoader from 'dataloader';
import { isObjectType, type GraphQLSchema } from 'graphql';
import { loadConfig } from '../../src/config';
import { createContext } from '../../src/context';
import { costDirectivesOf } from '../../src/limits/costDirectives';
import { createRequestRecord } from '../../src/pipeline/record';
import { createLogger } from '../../src/logger';
import { resolvers } from '../../src/resolvers';
import { buildExecutableSchema, loadTypeDefs } from '../../src/schema';
import { createUpstreams } from '../../src/upstreams';
import { PosClient } from '../../src/upstreams/pos/PosClient';
import { ReservationClient } from '../../src/upstreams/reservation/ReservationClient';

/**
 * The context's members through which a resolver reaches an upstream: found on a real context by what they are
 * (an upstream client, or an object of DataLoaders over one), not listed by hand.
 */
function upstreamMembers(): string[] {
  const config = loadConfig({ NODE_ENV: 'test', RESERVATION_BASE_URL: 'http://127.0.0.1:9', POS_BASE_URL: 'http://127.0.0.1:9' });
  const upstreams = createUpstreams(config);
  const ctx = createContext({ config, logger: createLogger({ level: 'silent' }), upstreams }, { header: () => undefined, record: createRequestRecord('coverage') });
  void upstreams.reservation.close();
  void upstreams.pos.close();
  return Object.entries(ctx)
    .filter(([, v]) => v instanceof ReservationClient || v instanceof PosClient || (typeof v === 'object' && v !== null && Object.values(v).some((l) => l instanceof DataLoader)))
    .map(([k]) => k);
}

/** The parameters of a function as written (compiled JS keeps them): `(a, b, { c })` → ['a', 'b', '{ c }']. */
function parametersOf(fn: (...args: never[]) => unknown): string[] {
  const source = fn.toString();
  const open = source.indexOf('(');
  const arrowWithoutParens = /^(async\s+)?[\w$]+\s*=>/.exec(source);
  if (arrowWithoutParens || open < 0) return [source.replace(/^async\s+/, '').split('=>')[0].trim()];
  const params: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of source.slice(open + 1)) {
    if (depth === 0 && ch === ')') break;
    if ('({['.includes(ch)) depth++;
    if (')}]'.includes(ch)) depth--;
    if (depth === 0 && ch === ',') {
      params.push(current.trim());
      current = '';
    } else current += ch;
  }
  if (current.trim()) params.push(current.trim());
  return params;
}

/**
 * Whether a resolver may reach an upstream: its context parameter is used through one of `members`, handed on whole
 * (to a helper that could), or read by a computed key. Conservative on purpose: a false alarm is one directive away.
 */
function reachesUpstream(fn: (...args: never[]) => unknown, members: readonly string[]): boolean {
  const ctx = parametersOf(fn)[2];
  if (!ctx) return false;
  const body = fn.toString();
  if (ctx.startsWith('{')) return members.some((m) => new RegExp(`\\b${m}\\b`).test(ctx));
  const name = ctx.replace(/=.*$/, '').trim();
  const via = new RegExp(`\\b${name}\\s*(\\?\\.|\\.)\\s*(${members.join('|')})\\b`);
  const whole = new RegExp(`[(,]\\s*${name}\\s*[,)]`);
  const computed = new RegExp(`\\b${name}\\s*\\[`);
  const rest = body.slice(body.indexOf('=>') >= 0 ? body.indexOf('=>') : body.indexOf('{'));
  return via.test(rest) || whole.test(rest) || computed.test(rest);
}

type ResolverMap = Record<string, unknown>;

/** `Type.field` of each resolver that may reach an upstream while its schema field has no `@cost`, and the reverse. */
function costCoverage(map: ResolverMap, schema: GraphQLSchema, members: readonly string[]): { missingCost: string[]; costWithoutCall: string[] } {
  const directives = costDirectivesOf(schema);
  const missingCost: string[] = [];
  const calling = new Set<string>();
  for (const [typeName, fields] of Object.entries(map)) {
    const type = schema.getType(typeName);
    if (!isObjectType(type) || typeof fields !== 'object' || fields === null) continue;
    for (const [fieldName, resolver] of Object.entries(fields as Record<string, unknown>)) {
      const fn = typeof resolver === 'function' ? resolver : (resolver as { resolve?: unknown } | undefined)?.resolve;
      const field = type.getFields()[fieldName];
      if (typeof fn !== 'function' || !field) continue;
      if (!reachesUpstream(fn as (...args: never[]) => unknown, members)) continue;
      calling.add(`${typeName}.${fieldName}`);
      if (directives.field(field).weight === undefined) missingCost.push(`${typeName}.${fieldName}`);
    }
  }
  const costWithoutCall: string[] = [];
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const where = `${type.name}.${field.name}`;
      if (directives.field(field).weight !== undefined && !calling.has(where)) costWithoutCall.push(where);
    }
  }
  return { missingCost, costWithoutCall };
}

describe('cost directive coverage', () => {
  const schema = buildExecutableSchema(loadTypeDefs(), resolvers);
  const members = upstreamMembers();

  it('finds the context members that reach an upstream on a real context', () => {
    expect(members.sort()).toEqual(['loaders', 'pos', 'reservation']);
  });

  it('has @cost on every field whose resolver reaches an upstream, and on no other field', () => {
    expect(costCoverage(resolvers as ResolverMap, schema, members)).toEqual({ missingCost: [], costWithoutCall: [] });
  });

  it('fails for a new resolver that calls an upstream without @cost on its field', () => {
    const withNewResolver: ResolverMap = {
      ...(resolvers as ResolverMap),
      Check: { ...(resolvers.Check as object), alias: (c: { id: string }, _: unknown, ctx: { pos: PosClient }) => ctx.pos.getCheck(c.id) },
      Employee: { lastName: async (_e: unknown, _a: unknown, context: unknown) => String(await Promise.resolve(context)) },
    };
    expect(costCoverage(withNewResolver, schema, members).missingCost).toEqual(['Check.alias', 'Employee.lastName']);
  });

  it('tells resolvers that only read the context\'s settings from those that reach an upstream', () => {
    expect(reachesUpstream((c: { t: number }, _: unknown, ctx: { config: { unit: string } }) => `${c.t}${ctx.config.unit}`, members)).toBe(false);
    expect(reachesUpstream((_p: unknown, _a: unknown, { loaders }: { loaders: { checkById: { load(id: string): unknown } } }) => loaders.checkById.load('x'), members)).toBe(true);
    expect(reachesUpstream(async (_p: unknown, _a: unknown, ctx: { reservation?: { getReservation(id: string): unknown } }) => ctx.reservation?.getReservation('x'), members)).toBe(true);
  });
});
