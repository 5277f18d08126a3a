import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { HeaderMap } from '@apollo/server';
import { execute, getOperationAST, specifiedRules, validate, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import type { CompiledQuery } from 'graphql-jit';
import type { Config } from '../config';
import type { GraphQLContext } from '../graphql-kit/context';
import { AppError, asAppError, ErrorCode, type ErrorDetail } from '../errors';
import { checkDatabase, type DatabaseState } from './database-gate';
import { REQUEST_ENDING_CODES } from './execution-limits';
import { compileOperation, formatExecutionError, runCompiled, type FormatError } from './jit-execution';
import { createRequestGuards } from './request-guards';

/** How an operation ended, as `graphql_operations` counts it (src/metrics/graphql-metrics.ts). */
export type OperationOutcome = 'success' | 'error' | 'invalid';

export interface PreparedOperationDeps {
  schema: GraphQLSchema;
  config: Config;
  database: DatabaseState;
  formatError: FormatError;
  /** Output types whose leaves may skip serialisation (src/graphql/trusted-leaves.ts). */
  trustedTypes: ReadonlySet<string>;
  /** Told of every run, as Apollo's requests are told to the metrics plugin. */
  observe?(operationName: string | undefined, operationType: string, outcome: OperationOutcome, seconds: number): void;
}

/** What a run answers: the data, and the remarks Apollo would have put in `extensions` (warnings). */
export interface PreparedResult<Data> {
  data: Data;
  extensions: Record<string, unknown>;
}

/** One of the service's own operations, ready to run: parsed, validated and compiled once. */
export interface PreparedOperation<Data, Variables> {
  readonly name: string | undefined;
  readonly type: OperationDefinitionNode['operation'];
  /** Runs it for one request; rejects with the AppError a client is shown (the first error, or the one that ends a request). */
  run(variables: Variables, context: GraphQLContext): Promise<PreparedResult<Data>>;
}

/**
 * The REST facade's operations run in-process without Apollo's request pipeline, whose work per
 * request (hashing the text, its document cache, nine plugins' hooks, a copy of the context) is
 * done once here instead, when the route is built: the document is validated (an invalid one stops
 * the start-up) and a query is compiled by graphql-jit. Each run then keeps every guarantee of a /graphql request, in the same order and by the same code:
 * the guards (sizes, coercion, cost, execution clock: request-guards.ts), the database gate
 * (database-gate.ts), the compiled execution in its span (jit-execution.ts), the error formatter,
 * the request-ending errors and the metrics. A mutation runs on graphql-js, as Apollo runs it.
 */
export function createOperationPreparer(deps: PreparedOperationDeps) {
  const guard = createRequestGuards(deps.schema, deps.config);
  return function prepare<Data, Variables extends Record<string, unknown>>(document: TypedDocumentNode<Data, Variables>): PreparedOperation<Data, Variables> {
    const operation = getOperationAST(document);
    // graphql-js's rules only: the depth, alias and directive limits bound clients' documents, and an
    // operator's low GRAPHQL_MAX_DEPTH must not take a legacy route down with it.
    const invalid = validate(deps.schema, document, specifiedRules);
    if (!operation || invalid.length) {
      throw new Error(`The operation ${operation?.name?.value ?? '(unnamed)'} cannot run on this schema: ${invalid.map((error) => error.message).join('; ') || 'one operation expected'}`);
    }
    const name = operation.name?.value;
    const compiled: CompiledQuery | false = operation.operation === 'query' ? compileOperation(deps.schema, document, name, deps.trustedTypes) : false;
    const executeOnce = async (variables: Variables, context: GraphQLContext) =>
      compiled ? runCompiled(deps.schema, compiled, operation, context, variables) : execute({ schema: deps.schema, document, operationName: name, contextValue: context, variableValues: variables });

    return {
      name,
      type: operation.operation,
      async run(variables, context) {
        const started = performance.now();
        let outcome: OperationOutcome = 'invalid';
        try {
          guard({ document, operation, operationName: name, variables, context });
          checkDatabase(deps.database, operation);
          outcome = 'error';
          const result = await executeOnce(variables, context);
          if (result.errors?.length) {
            const ending = result.errors.find((error) => REQUEST_ENDING_CODES.has(asAppError(error)?.code));
            throw toAppError(ending ?? result.errors[0], deps.formatError);
          }
          outcome = 'success';
          return { data: result.data as Data, extensions: context.warnings.length ? { warnings: context.warnings } : {} };
        } finally {
          deps.observe?.(name, operation.operation, outcome, (performance.now() - started) / 1000);
        }
      },
    };
  };
}

/** The AppError behind an execution error, or the one its formatted form describes (an unexpected error is logged there and shown bare). */
function toAppError(raw: unknown, formatError: FormatError): AppError {
  const known = asAppError(raw);
  if (known) return known;
  const formatted = formatExecutionError(raw, formatError, { status: undefined, headers: new HeaderMap() });
  const code = formatted.extensions?.code;
  const details = (formatted.extensions?.details as ErrorDetail[] | undefined) ?? [];
  // graphql-js's own client codes (GRAPHQL_VALIDATION_FAILED…) are not ours: a bad request all the same.
  const errorCode = Object.values(ErrorCode).includes(code as ErrorCode) ? (code as ErrorCode) : typeof code === 'string' ? ErrorCode.BAD_REQUEST : ErrorCode.INTERNAL_SERVER_ERROR;
  return new AppError(errorCode, formatted.message, { details });
}
