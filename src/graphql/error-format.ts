import type { GraphQLFormattedError } from 'graphql';
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
    if (isDatabaseUnavailable(error)) {
      return { ...base, message: 'The database is unavailable; try again shortly', extensions: { code: ErrorCode.SERVICE_UNAVAILABLE } };
    }
    logger.error({ err: error }, 'unexpected error in a GraphQL operation');
    return { ...base, message: 'Internal server error', extensions: { code: ErrorCode.INTERNAL_SERVER_ERROR } };
  };
}
