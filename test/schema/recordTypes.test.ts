import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { RECORD_TYPES } from '../../src/resolvers';

/**
 * RECORD_TYPES (the types whose fields get no snake_case resolver, src/schema.ts) must be exactly the types codegen.yml
 * maps to an upstream record: a type added to one list and not the other would answer null for its renamed fields, or
 * pay a resolver call per field.
 */
describe('RECORD_TYPES', () => {
  it('lists exactly the GraphQL types codegen.yml maps to a …Record type', () => {
    const codegen = parse(readFileSync(join(__dirname, '..', '..', 'codegen.yml'), 'utf8')) as {
      generates: Record<string, { config?: { mappers?: Record<string, string> } }>;
    };
    const mappers = codegen.generates['src/generated/graphql.ts']?.config?.mappers ?? {};
    const mappedToRecords = Object.entries(mappers)
      .filter(([, target]) => /#\w+Record$/.test(target))
      .map(([type]) => type);
    expect(mappedToRecords.length).toBeGreaterThan(20);
    expect([...RECORD_TYPES].sort()).toEqual(mappedToRecords.sort());
  });
});
