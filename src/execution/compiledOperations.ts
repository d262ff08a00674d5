import { Kind, OperationTypeNode, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import type { ResolvedOperation } from '../limits/costLimit';

/**
 * A query document that passed every request's parse, validation and limit rules, compiled once by graphql-jit,
 * which the /graphql route may run without Apollo Server's per-request work (src/execution/compiledPath.ts).
 */
export interface CompiledOperation extends ResolvedOperation {
  readonly schema: GraphQLSchema;
  readonly document: DocumentNode;
  readonly operation: OperationDefinitionNode;
  /** The operation's name; null for an anonymous one (as Apollo's plugins see it). */
  readonly name: string | null;
  readonly query: CompiledQuery;
}

/**
 * The compiled operations by their exact document text: the trusted documents, compiled at start, and the texts
 * the executor compiled once they had run `minUses` times (src/execution/jitExecution.ts), which are as bounded as
 * the executor's compiled documents. Only documents of one query operation are kept: a mutation runs serially on
 * graphql-js, and a document of several operations would need Apollo's choice of one.
 */
export class CompiledOperations {
  private readonly byText = new Map<string, CompiledOperation>();

  constructor(private readonly schema: GraphQLSchema) {}

  /** The operation to run for this text and requested name, when one was compiled; else Apollo runs the request. */
  find(text: string, operationName: string | null | undefined): CompiledOperation | undefined {
    const found = this.byText.get(text);
    if (!found) return undefined;
    return operationName === undefined || operationName === null || operationName === found.name ? found : undefined;
  }

  /** Compiles a trusted document (already validated at start); documents that are not one query are left to Apollo. */
  addTrusted(text: string, document: DocumentNode): void {
    this.keep(text, document, (operation) => {
      const query = compileQuery(this.schema, document, operation.name?.value);
      return isCompiledQuery(query) ? query : undefined;
    });
  }

  /** Keeps a text Apollo parsed and validated and the executor compiled, so its next requests skip Apollo. */
  learn(text: string, document: DocumentNode, query: CompiledQuery): void {
    this.keep(text, document, () => query);
  }

  private keep(text: string, document: DocumentNode, compiled: (operation: OperationDefinitionNode) => CompiledQuery | undefined): void {
    const operation = soleQuery(document);
    if (!operation || this.byText.has(text)) return;
    const query = compiled(operation);
    if (!query) return;
    this.byText.set(text, { schema: this.schema, document, operation, name: operation.name?.value ?? null, query });
  }
}

/** The document's operation when it holds exactly one and that one is a query. */
function soleQuery(document: DocumentNode): OperationDefinitionNode | undefined {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const [only] = operations;
  return operations.length === 1 && only?.operation === OperationTypeNode.QUERY ? only : undefined;
}
