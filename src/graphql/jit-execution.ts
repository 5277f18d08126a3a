import { HeaderMap, type ApolloServerPlugin, type GraphQLResponse } from '@apollo/server';
import { GraphQLError, typeFromAST, valueFromAST, type DocumentNode, type GraphQLFormattedError, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { LRUCache } from 'lru-cache';
import type { GraphQLContext } from '../graphql-kit/context';
import { ErrorCode } from '../errors';
import { withOperationSpan } from '../telemetry/operation-span';
import { leavesAreTrusted } from './trusted-leaves';

/** Bounds of the compiled-query cache. */
export interface JitCacheOptions {
  /** Most compiled documents kept. */
  maxEntries: number;
  /** Most characters of document text kept compiled, all entries together (compiled code grows with it). */
  maxTotalChars: number;
  /** Longest document worth compiling; longer ones run through the normal executor. */
  maxDocumentChars: number;
}

export const DEFAULT_JIT_CACHE: JitCacheOptions = { maxEntries: 200, maxTotalChars: 2_000_000, maxDocumentChars: 20_000 };

export type FormatError = (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError;

/**
 * Runs queries through graphql-jit: each distinct document is compiled once into plain JavaScript,
 * which executes large lists several times faster than graphql-js's interpreter (a 5,000-entry
 * timeline is 100,000 fields). Only queries of authenticated callers, only documents seen twice
 * (a one-off document is not worth its compilation) and no longer than `maxDocumentChars`; the
 * cache is an LRU bounded in entries and in total document size, so distinct documents cannot
 * grow memory. Everything else runs through Apollo's own executor. Errors are formatted here, as
 * Apollo would, rather than by running the query a second time.
 */
export function jitExecutionPlugin(
  schema: GraphQLSchema,
  formatError: FormatError,
  options: JitCacheOptions = DEFAULT_JIT_CACHE,
  /** Output types whose leaves may skip serialisation (src/graphql/trusted-leaves.ts). */
  trustedTypes: ReadonlySet<string> = new Set(),
): ApolloServerPlugin<GraphQLContext> {
  const compiled = new LRUCache<string, CompiledQuery | false>({
    max: options.maxEntries,
    maxSize: options.maxTotalChars,
    sizeCalculation: (_query, key) => Math.max(1, key.length),
  });
  // Keys only: documents met once, so that the second sighting compiles.
  const seen = new LRUCache<string, true>({ max: options.maxEntries * 5, maxSize: options.maxTotalChars, sizeCalculation: (_value, key) => Math.max(1, key.length) });
  return {
    async requestDidStart() {
      return {
        async responseForOperation({ document, operation, operationName, request, contextValue }): Promise<GraphQLResponse | null> {
          if (operation?.operation !== 'query' || request.query === undefined || !contextValue.principal) return null;
          if (request.query.length > options.maxDocumentChars) return null;
          const key = `${operationName ?? ''}\n${request.query}`;
          let query = compiled.get(key);
          if (query === undefined) {
            if (!seen.has(key)) {
              seen.set(key, true);
              return null;
            }
            seen.delete(key);
            query = compileOperation(schema, document, operationName ?? undefined, trustedTypes);
            compiled.set(key, query);
          }
          if (!query) return null;
          const result = await runCompiled(schema, query, operation, contextValue, request.variables ?? {});
          const http = { status: undefined as number | undefined, headers: new HeaderMap() };
          if (!result.errors?.length) return { http, body: { kind: 'single', singleResult: { data: result.data } } };
          const errors = result.errors.map((error) => formatExecutionError(error, formatError, http));
          return { http, body: { kind: 'single', singleResult: { data: result.data, errors } } };
        },
      };
    },
  };
}

/** One operation of `document` compiled by graphql-jit (its leaves unserialised when all are trusted), or false when graphql-jit cannot compile it. */
export function compileOperation(schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined, trustedTypes: ReadonlySet<string>): CompiledQuery | false {
  const trusted = leavesAreTrusted(schema, document, trustedTypes);
  const result = compileQuery(schema, document, operationName, trusted ? { disableLeafSerialization: true } : undefined);
  return isCompiledQuery(result) ? result : false;
}

/** Runs a compiled query with the variables' declared defaults filled in, in the operation's span. */
export function runCompiled(schema: GraphQLSchema, query: CompiledQuery, operation: OperationDefinitionNode, context: GraphQLContext, variables: Record<string, unknown>) {
  const filled = withDefaults(schema, operation, variables);
  return withOperationSpan(operation, async () => query.query(undefined, context, filled));
}

/**
 * The variables as graphql-js would see them: a variable left out takes its declared default.
 * graphql-jit 0.8 applies a default only to a nullable variable and refuses a non-null one with a
 * default (`$x: Boolean! = false`) as "not provided", a valid query that then failed once compiled.
 */
function withDefaults(schema: GraphQLSchema, operation: OperationDefinitionNode, variables: Record<string, unknown>): Record<string, unknown> {
  let filled: Record<string, unknown> | undefined;
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    if (definition.defaultValue === undefined || Object.hasOwn(variables, name)) continue;
    const type = typeFromAST(schema, definition.type);
    if (!type) continue;
    filled ??= { ...variables };
    filled[name] = valueFromAST(definition.defaultValue, type as Parameters<typeof valueFromAST>[1]);
  }
  return filled ?? variables;
}

/**
 * What Apollo does with an execution error (errorNormalize.ts): a GraphQLError with a code, its
 * `extensions.http` moved onto the response, then the service's formatter.
 */
export function formatExecutionError(raw: unknown, formatError: FormatError, http: { status: number | undefined; headers: HeaderMap }): GraphQLFormattedError {
  const error = raw instanceof GraphQLError ? raw : toGraphQLError(raw);
  const { http: errorHttp, ...extensions } = (error.extensions ?? {}) as { http?: { status?: number; headers?: Map<string, string> }; code?: unknown };
  if (errorHttp?.status) http.status = errorHttp.status;
  for (const [name, value] of errorHttp?.headers ?? []) http.headers.set(name, value);
  const formatted: GraphQLFormattedError = { ...error.toJSON(), extensions: { ...extensions, code: extensions.code ?? ErrorCode.INTERNAL_SERVER_ERROR } };
  try {
    return formatError(formatted, error);
  } catch {
    return { message: 'Internal server error', extensions: { code: ErrorCode.INTERNAL_SERVER_ERROR } };
  }
}

/** graphql-jit's errors are look-alikes of GraphQLError; rebuild one, keeping what it wraps. */
function toGraphQLError(raw: unknown): GraphQLError {
  const error = raw as { message?: string; path?: (string | number)[]; originalError?: Error; extensions?: Record<string, unknown> };
  return new GraphQLError(error.message ?? 'Unknown error', {
    path: error.path,
    originalError: error.originalError ?? (raw instanceof Error ? raw : undefined),
    extensions: error.extensions,
  });
}
