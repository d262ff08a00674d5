import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { InMemoryLRUCache, type KeyValueCache } from '@apollo/utils.keyvaluecache';
import type { DocumentNode } from 'graphql';
import type { Config } from './config';
import type { GatewayContext } from './context';
import { createFormatError } from './errors/formatError';
import { refusalStatusPlugin } from './http/refusalStatusPlugin';
import { recordPlugin } from './observability/plugins/recordPlugin';
import { documentLimits, introspectionOff } from './limits/documentLimits';
import { costLimitPlugin, type ClientCostPolicy } from './limits/costLimit';
import type { Logger } from './logger';
import { incrementalExecution } from './execution/incrementalExecution';
import { jitExecution } from './execution/jitExecution';
import { RECORD_TYPES, resolvers } from './resolvers';
import { buildExecutableSchema, loadTypeDefs } from './schema';
import { PinnedDocumentStore, type DocumentValidation } from './trustedDocuments/manifest';

export interface ApolloServerOptions {
  config: Config;
  logger: Logger;
  /** Automatic persisted queries: query texts by hash. */
  persistedQueries: KeyValueCache<string>;
  clientCost?: ClientCostPolicy;
  /** More plugins, added after the gateway's own. */
  plugins?: ApolloServerPlugin<GatewayContext>[];
  /** The trusted documents, validated at start with the rules requests get and kept for good; may throw to stop the start. */
  pinDocuments?: (validation: DocumentValidation) => ReadonlyMap<string, DocumentNode>;
}

export type Execution = ReturnType<typeof createExecution>;

/** The Apollo server: schema and execution, document limits, APQ, error formatting and the observability plugins. */
export function createExecution(options: ApolloServerOptions) {
  const { config, logger } = options;
  const production = config.env === 'production';
  const { limits } = config;
  const documentRules = documentLimits({ limits, blockFieldSuggestion: production });
  const schema = buildExecutableSchema(loadTypeDefs(), resolvers, RECORD_TYPES);
  // Parsed and validated documents by query text, within a byte budget (Apollo's default lets them pile up).
  const recent = new InMemoryLRUCache<DocumentNode>({ maxSize: config.execution.documentCacheMaxBytes, sizeCalculation: (document) => InMemoryLRUCache.sizeCalculation(document) });
  const validationRules = [...documentRules.validationRules, ...(config.introspection ? [] : [introspectionOff])];
  const formatError = createFormatError(logger);
  const pinned = options.pinDocuments?.({ schema, validationRules, parseOptions: documentRules.parseOptions });
  // For the compiled executor, the trusted documents are compiled at start, like their parse and validation.
  const gateway = jitExecution(schema, { ...config.execution, trusted: config.execution.compiledPath ? pinned?.values() : undefined });
  // @defer and @stream, for clients that accept multipart/mixed: on Apollo's parsed, validated and judged operation.
  const incremental = incrementalExecution({ formatError, clientCost: options.clientCost });
  const apollo = new ApolloServer<GatewayContext>({
    gateway,
    documentStore: pinned ? new PinnedDocumentStore(pinned, recent) : recent,
    // The process's signals are main.ts's business: Apollo's own handler would stop it in the middle of the drain.
    stopOnTerminationSignals: false,
    logger,
    // Apollo's switch stays on: its refusal names Apollo's option, introspectionOff names INTROSPECTION.
    introspection: true,
    includeStacktraceInErrorResponses: false,
    hideSchemaDetailsFromClientErrors: production,
    csrfPrevention: true,
    allowBatchedHttpRequests: limits.maxBatchSize > 0,
    persistedQueries: { cache: options.persistedQueries, ttl: config.persistedQueries.ttlSeconds },
    parseOptions: documentRules.parseOptions,
    validationRules,
    formatError,
    plugins: [
      // No cache hints (the default plugin wraps every resolver). HTTP caching is the route's: every answer carries a
      // Cache-Control of its own (src/http/httpCaching.ts), and GET answers vary by the credential headers.
      ApolloServerPluginCacheControlDisabled(),
      ...documentRules.plugins,
      costLimitPlugin({ maxUpstreamCalls: limits.maxUpstreamCalls, maxCost: limits.maxCost }, options.clientCost),
      incremental.plugin,
      refusalStatusPlugin(),
      // Browsers get the gateway's own explorer before Apollo, not Apollo's CDN landing page.
      ApolloServerPluginLandingPageDisabled(),
      recordPlugin(),
      ...(options.plugins ?? []),
    ],
  });
  // `compiled`: the one compile cache, for the compiled executor (none with COMPILED_PATH off).
  return { apollo, schema, compiled: config.execution.compiledPath ? gateway : undefined, formatError };
}
