import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { isDatabaseUnavailable } from '../db/database-errors';
import { asAppError, ErrorCode } from '../errors';
import type { Logger } from '../logger';

/** Codes graphql-js and Apollo Server give to client mistakes; their messages are safe to show. */
const CLIENT_CODES = new Set([
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_USER_INPUT',
  'BAD_REQUEST',
  'OPERATION_RESOLUTION_FAILURE',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_SUPPORTED',
]);

/**
 * Apollo Server's refusals of an automatic persisted query come without a code (its messages, as
 * requestPipeline.ts words them), so they would pass for bugs: each gets a code and a message that
 * say what to fix.
 */
const PERSISTED_QUERY_ERRORS = new Map<string, { code: ErrorCode; message: string }>([
  [
    'provided sha does not match query',
    {
      code: ErrorCode.PERSISTED_QUERY_HASH_MISMATCH,
      message: 'extensions.persistedQuery.sha256Hash is not the SHA-256 of the query sent with it: send the lowercase hex SHA-256 of the exact query text',
    },
  ],
  ['Unsupported persisted query version', { code: ErrorCode.PERSISTED_QUERY_VERSION_UNSUPPORTED, message: 'extensions.persistedQuery.version must be 1, the only version served' }],
]);

/**
 * Shapes every GraphQL error a client sees: our AppErrors keep code, message and details; client
 * mistakes found by graphql-js keep theirs; an unreachable database is SERVICE_UNAVAILABLE; anything
 * else is logged in full and shown as a bare INTERNAL_SERVER_ERROR, never with a stack trace.
 */
export function createErrorFormatter(logger: Logger) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const appError = asAppError(error);
    const base = { message: formatted.message, locations: formatted.locations, path: formatted.path };
    if (appError) {
      return {
        ...base,
        message: appError.message,
        extensions: { code: appError.code, ...(appError.details.length ? { details: appError.details } : {}) },
      };
    }
    const code = formatted.extensions?.code;
    if (typeof code === 'string' && CLIENT_CODES.has(code)) {
      return { ...base, extensions: { code } };
    }
    const persistedQuery = error instanceof GraphQLError && error.extensions?.code === undefined ? PERSISTED_QUERY_ERRORS.get(error.message) : undefined;
    if (persistedQuery) {
      return { ...base, message: persistedQuery.message, extensions: { code: persistedQuery.code } };
    }
    if (isDatabaseUnavailable(error)) {
      return { ...base, message: 'The database is unavailable; try again shortly', extensions: { code: ErrorCode.SERVICE_UNAVAILABLE } };
    }
    logger.error({ err: error }, 'unexpected error in a GraphQL operation');
    return { ...base, message: 'Internal server error', extensions: { code: ErrorCode.INTERNAL_SERVER_ERROR } };
  };
}
