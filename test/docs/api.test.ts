import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kind, buildSchema, isScalarType, parse } from 'graphql';
import { CREDENTIAL_HEADERS, OTHER_SPELLINGS } from '../../src/credentials';
import { ErrorCode } from '../../src/errors/codes';
import { loadTypeDefs } from '../../src/schema';
import { fencedBlocks, tableRows, unquote } from '../support/readme';

const API = readFileSync(join(__dirname, '..', '..', 'docs', 'api.md'), 'utf8');
const schema = buildSchema(loadTypeDefs());

/** The `type Query` and `type Mutation` of the reference's SDL block: field name → argument names. */
function documentedRoots(): Map<string, string[]> {
  const sdl = fencedBlocks(API).find((b) => b.lang === 'graphql' && b.text.includes('type Query'))!.text;
  const roots = new Map<string, string[]>();
  for (const def of parse(sdl).definitions) {
    if (def.kind !== Kind.OBJECT_TYPE_DEFINITION || !['Query', 'Mutation'].includes(def.name.value)) continue;
    for (const field of (def).fields ?? []) {
      roots.set(`${def.name.value}.${field.name.value}`, (field.arguments ?? []).map((a) => a.name.value).sort());
    }
  }
  return roots;
}

/** docs/api.md against the code: what the reference names exists, and what exists is in the reference. */
describe('docs/api.md', () => {
  it('lists every root field of the schema with its arguments', () => {
    const real = new Map<string, string[]>();
    for (const type of [schema.getQueryType()!, schema.getMutationType()!]) {
      for (const field of Object.values(type.getFields())) real.set(`${type.name}.${field.name}`, field.args.map((a) => a.name).sort());
    }
    expect(Object.fromEntries(documentedRoots())).toEqual(Object.fromEntries(real));
  });

  it('lists every custom scalar of the schema', () => {
    const section = API.slice(API.indexOf('## Scalars'), API.indexOf('## Operations')).split('\n');
    const documented = tableRows(section).map(([cell]) => unquote(cell)).sort();
    const real = Object.values(schema.getTypeMap()).filter((t) => isScalarType(t) && !t.name.startsWith('__') && !['String', 'Int', 'Float', 'Boolean', 'ID'].includes(t.name)).map((t) => t.name).sort();
    expect(documented).toEqual(real);
  });

  it('lists every error code the gateway gives', () => {
    const section = API.slice(API.indexOf('## Errors')).split('\n');
    const documented = tableRows(section).map(([cell]) => unquote(cell));
    expect(documented.filter((c) => /^[A-Z_]+$/.test(c)).sort()).toEqual(Object.values(ErrorCode).sort());
  });

  it('names every credential header with the service it goes to', () => {
    const section = API.slice(API.indexOf('## Headers'), API.indexOf('## Scalars')).split('\n');
    // "reservation service only" → reservation, "POS service only" → pos
    const documented = Object.fromEntries(tableRows(section).slice(0, 2).map(([headers, service]) => [service.split(' ')[0].toLowerCase(), headers.split(',').map((h) => unquote(h.trim()))]));
    expect(documented).toEqual(CREDENTIAL_HEADERS);
    for (const other of Object.values(OTHER_SPELLINGS)) expect(section.join('\n')).toContain(`\`${other}\``);
  });
});
