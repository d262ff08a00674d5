// @ts-check
/**
 * A graphql-codegen plugin writing Apollo's persisted query manifest
 * (`{"format":"apollo-persisted-query-manifest","version":1,"operations":[{id,name,type,body}]}`, `id` = SHA-256 hex
 * of `body`) for the operations in `operations/`. Each body is the operation with the fragments it uses, printed
 * the way graphql-codegen's client preset prints persisted documents (sorted and minified by
 * @graphql-tools/documents), so a typed document's `__meta__.hash` is `sha256:` + its manifest id.
 * A plugin rather than a script, so `graphql-codegen --check` finds a stale manifest too.
 */
const { createHash } = require('node:crypto');
const { Kind, visit } = require('graphql');
const { printExecutableGraphQLDocument } = require('@graphql-tools/documents');

/** @param {import('graphql').GraphQLSchema} _schema @param {Array<{document?: import('graphql').DocumentNode, location?: string}>} documents */
function plugin(_schema, documents) {
  /** @type {Map<string, import('graphql').FragmentDefinitionNode>} */
  const fragments = new Map();
  /** @type {Array<import('graphql').OperationDefinitionNode>} */
  const operations = [];
  for (const { document } of documents) {
    for (const definition of document?.definitions ?? []) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
      else if (definition.kind === Kind.OPERATION_DEFINITION) operations.push(definition);
    }
  }
  const entries = operations.map((operation) => {
    const name = operation.name?.value;
    // Clients name a trusted document by id, and people, logs and metrics name it by its operation name.
    if (!name) throw new Error('persisted query manifest: every operation in operations/ needs a name');
    const body = printExecutableGraphQLDocument({ kind: Kind.DOCUMENT, definitions: [operation, ...fragmentsOf(operation, fragments)] });
    return { id: createHash('sha256').update(body).digest('hex'), name, type: operation.operation, body };
  });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const names = new Set();
  for (const { name } of entries) {
    if (names.has(name)) throw new Error(`persisted query manifest: two operations are named ${name}`);
    names.add(name);
  }
  return `${JSON.stringify({ format: 'apollo-persisted-query-manifest', version: 1, operations: entries }, null, 2)}\n`;
}

/** The fragments `node` spreads, directly or through other fragments, each once. */
function fragmentsOf(node, fragments, seen = new Set()) {
  visit(node, {
    FragmentSpread(spread) {
      const name = spread.name.value;
      if (seen.has(name)) return;
      const fragment = fragments.get(name);
      if (!fragment) throw new Error(`persisted query manifest: fragment ${name} is not defined in operations/`);
      seen.add(name);
      fragmentsOf(fragment, fragments, seen);
    },
  });
  return [...seen].map((name) => fragments.get(name));
}

module.exports = { plugin };
