import { performance } from 'node:perf_hooks';
import type { ApolloServerPlugin } from '@apollo/server';
import { defaultFieldResolver, getNullableType, isListType, isObjectType, type FormattedExecutionResult, type GraphQLSchema } from 'graphql';
import { AppError, ErrorCode, queryTimeout } from '../errors';
import { writeJson } from '../shared/json-writer';
import type { AnswerHolder } from '../graphql-kit/context';

/*
 * Server-side caps on what one GraphQL request may spend once it runs: a deadline on execution
 * and a byte limit on the answer. The cost estimate stops most expensive queries before they
 * start; these two stop the ones it underestimates (denser data than assumed).
 */

/** What of a request's context the clock reads and writes (GraphQLContext has both). */
interface ClockedContext {
  executionDeadline?: number;
  config?: { limits: { graphqlTimeoutMs: number } };
}

/** Starts the execution clock of the request whose context this is: its deadline, on `performance.now()`'s clock. */
export function startExecutionClock(context: ClockedContext, limitMs: number): void {
  context.executionDeadline = performance.now() + limitMs;
}

export { queryTimeout };

/** Throws QUERY_TIMEOUT once the request's deadline has passed (a context whose clock never started has none). */
export function checkExecutionTime(context: unknown): void {
  const { executionDeadline, config } = (context ?? {}) as ClockedContext;
  if (executionDeadline !== undefined && performance.now() > executionDeadline) throw queryTimeout(config?.limits.graphqlTimeoutMs ?? 0);
}

/**
 * Makes the fields where work multiplies check the deadline: every query root field (before it
 * starts and when its data arrives, so a late answer is dropped rather than completed row by
 * row) and every list field below. A mutation is never stopped by the clock, neither between its
 * fields nor below them: each root field writes, and graphql-js can only answer a field it did not
 * run with an error that nulls the whole `data` (the fields are non-null), hiding the writes that
 * happened. Its work is bounded before it starts instead (aliases, cost), and every write is
 * reported. Changes `schema` in place; call once per schema.
 */
export function enforceExecutionDeadline(schema: GraphQLSchema): GraphQLSchema {
  const queryType = schema.getQueryType();
  const mutationType = schema.getMutationType();
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__') || type === mutationType) continue;
    for (const field of Object.values(type.getFields())) {
      if (type !== queryType && !isListType(getNullableType(field.type))) continue;
      const resolve = field.resolve ?? defaultFieldResolver;
      field.resolve = (source, args, context, info) => {
        // Below a mutation the write has happened: its result is always delivered.
        if (info.operation.operation === 'mutation') return resolve(source, args, context, info);
        checkExecutionTime(context);
        const value = resolve(source, args, context, info);
        if (value instanceof Promise) {
          return value.then((resolved) => {
            checkExecutionTime(context);
            return resolved;
          });
        }
        return value;
      };
    }
  }
  return schema;
}

/** Errors that end a request as a whole: the answer is that one error, without partial data. */
export const REQUEST_ENDING_CODES: ReadonlySet<unknown> = new Set([ErrorCode.QUERY_TIMEOUT, ErrorCode.RESPONSE_TOO_LARGE]);

export function responseTooLarge(bytes: number, maxBytes: number): AppError {
  return new AppError(ErrorCode.RESPONSE_TOO_LARGE, `The answer would be ${bytes} bytes, over the limit of ${maxBytes}: ask for less (a shorter range, fewer fields or aliases)`, {
    details: [{ field: 'query', message: `response size limit ${maxBytes} bytes`, bytes, maxBytes }],
  });
}

/** Byte length of a string without encoding it when the answer is plainly small. */
export function utf8Length(text: string): number {
  // Every UTF-16 unit is at most 3 UTF-8 bytes.
  return text.length * 3 <= 64 * 1024 ? text.length : Buffer.byteLength(text);
}

/** What the plugin encoded, kept on the answer's own `data` under a symbol (JSON ignores it), so it dies with the answer. */
const ENCODED = Symbol('encoded answer');

/** The parts of the answer the bytes were written from: Apollo's answer is that one while they are the same objects. */
interface EncodedResult {
  errors: unknown;
  extensions: unknown;
}

/**
 * Caps the size of /graphql answers. Apollo serialises an answer after the last plugin hook, too
 * late to change its status, so `willSendResponse` serialises it here, refuses it when too large
 * (413 with RESPONSE_TOO_LARGE, no data; never a mutation's, which reports writes that happened,
 * and whose size aliases and cost bound before it runs), and keeps the bytes for the HTTP route (AnswerHolder)
 * instead of serialising twice. In-process calls (the REST facade, which has no HTTP request
 * here) are measured by the facade on its own answer.
 */
export function responseSizeLimit(maxBytes: number): {
  plugin: ApolloServerPlugin;
  stringifyResult: (value: FormattedExecutionResult) => string;
} {
  const plugin: ApolloServerPlugin = {
    async requestDidStart({ request, contextValue }) {
      if (!request.http) return;
      return {
        async willSendResponse({ response, operation }) {
          if (response.body.kind !== 'single') return;
          const { data, errors, extensions } = response.body.singleResult;
          // Written a slice at a time (src/shared/json-writer.ts), cheaper for a large answer than
          // JSON.stringify's rope of pieces. A mutation's answer is never refused: it reports writes.
          const encoded = writeJson({ errors, data, extensions }, operation?.operation === 'mutation' ? Infinity : maxBytes, '\n');
          if (!('bytes' in encoded)) {
            const error = responseTooLarge(encoded.byteLength, maxBytes);
            response.body.singleResult = {
              errors: [{ message: error.message, extensions: { code: error.code, details: error.details } }],
            };
            response.http.status = error.status;
            return;
          }
          // A context without a holder (not built for HTTP) leaves the answer to stringifyResult.
          const holder = (contextValue as { answer?: AnswerHolder }).answer;
          if (!data || !holder) return;
          holder.bytes = encoded.bytes;
          Object.defineProperty(data, ENCODED, { value: { errors, extensions } satisfies EncodedResult, enumerable: false });
        },
      };
    },
  };
  const stringifyResult = (value: FormattedExecutionResult): string => {
    const encoded = value.data ? (value.data as Record<symbol, EncodedResult | undefined>)[ENCODED] : undefined;
    // Sent as bytes by the HTTP route (AnswerHolder).
    if (encoded && encoded.errors === value.errors && encoded.extensions === value.extensions) return '';
    return `${JSON.stringify(value)}\n`;
  };
  return { plugin, stringifyResult };
}
