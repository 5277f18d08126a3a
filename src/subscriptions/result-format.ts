import type { ExecutionResult, FormattedExecutionResult, GraphQLError, GraphQLFormattedError } from 'graphql';
import { ErrorCode, MAX_ERROR_DETAILS } from '../errors';
import { createErrorFormatter } from '../graphql/error-format';
import { responseTooLarge, utf8Length } from '../graphql/execution-limits';
import type { Logger } from '../logger';

/**
 * What a subscriber receives is shaped as /graphql answers are: every error through the service's
 * formatter (code, message, details; a bug becomes a bare INTERNAL_SERVER_ERROR, never a stack), at
 * most MAX_ERROR_DETAILS errors, and no message over RESPONSE_MAX_BYTES (that one event is replaced
 * by a RESPONSE_TOO_LARGE error; the subscription goes on).
 */
export function createResultShaping(logger: Logger, responseMaxBytes: number) {
  const formatError = createErrorFormatter(logger);
  const format = (error: GraphQLError): GraphQLFormattedError => {
    try {
      return formatError(error.toJSON(), error);
    } catch {
      return { message: 'Internal server error', extensions: { code: ErrorCode.INTERNAL_SERVER_ERROR } };
    }
  };
  const errors = (list: readonly GraphQLError[]): GraphQLFormattedError[] => {
    const shown = list.slice(0, MAX_ERROR_DETAILS).map(format);
    const omitted = list.length - shown.length;
    if (omitted > 0) shown.push({ message: `${omitted} more errors not listed (only the first ${MAX_ERROR_DETAILS} are)`, extensions: { code: shown[0].extensions?.code ?? ErrorCode.INTERNAL_SERVER_ERROR, omitted } });
    return shown;
  };
  // One result object is shared by the alike subscriptions of an event (shared-execution.ts): shaped once.
  const shapedResults = new WeakMap<ExecutionResult, FormattedExecutionResult>();
  const result = (executed: ExecutionResult): FormattedExecutionResult => {
    let shapedResult = shapedResults.get(executed);
    if (!shapedResult) shapedResults.set(executed, (shapedResult = shape(executed)));
    return shapedResult;
  };
  const shape = (executed: ExecutionResult): FormattedExecutionResult => {
    const shaped: FormattedExecutionResult = { ...executed, errors: executed.errors ? errors(executed.errors) : undefined };
    if (!shaped.errors) delete shaped.errors;
    const bytes = utf8Length(JSON.stringify(shaped));
    if (bytes <= responseMaxBytes) return shaped;
    return { errors: errors([responseTooLarge(bytes, responseMaxBytes)]) };
  };
  return { errors, result };
}
