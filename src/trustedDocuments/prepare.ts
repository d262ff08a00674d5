import { getOperationAST, parse, specifiedRules, validate, type DocumentNode, type GraphQLSchema, type ParseOptions, type ValidationRule } from 'graphql';
import { describe, TrustedDocumentsError, type ManifestOperation } from './manifest';
import { messageOf } from '../errors/errorFields';

/** What requests are checked with, so a trusted document is checked at start exactly as a request would be. */
export interface DocumentValidation {
  schema: GraphQLSchema;
  /** Beyond graphql-js's specified rules: the limits (depth, cost, aliases, directives) and introspection. */
  validationRules: readonly ValidationRule[];
  /** The options every request's document is parsed with (the token limit, MAX_TOKENS). */
  parseOptions: ParseOptions;
}

/**
 * Parses, validates and limit-checks every trusted document once, at start. Any failure stops the start with a
 * message naming each operation that failed and why. The upstream-call limit depends on variables and still runs
 * per request (src/limits/costLimit.ts).
 */
export function prepareDocuments(operations: ReadonlyMap<string, ManifestOperation>, validation: DocumentValidation): Map<string, DocumentNode> {
  const documents = new Map<string, DocumentNode>();
  const problems: string[] = [];
  const rules = [...specifiedRules, ...validation.validationRules];
  for (const op of operations.values()) {
    let document: DocumentNode;
    try {
      document = parse(op.body, validation.parseOptions);
    } catch (err) {
      problems.push(`${describe(op)} does not parse: ${messageOf(err)}`);
      continue;
    }
    const errors = validate(validation.schema, document, rules);
    if (errors.length > 0) {
      problems.push(`${describe(op)} does not validate against the schema: ${errors.map((e) => e.message).join(' ')}`);
      continue;
    }
    const operation = getOperationAST(document, op.name);
    if (!operation || String(operation.operation) !== op.type) {
      problems.push(`${describe(op)}: the body has no ${op.type} named ${op.name}`);
      continue;
    }
    documents.set(op.id, document);
  }
  if (problems.length > 0) throw new TrustedDocumentsError(problems);
  return documents;
}
