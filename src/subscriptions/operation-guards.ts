import { blockFieldSuggestionsPlugin } from '@escape.tech/graphql-armor-block-field-suggestions';
import { getOperationAST, GraphQLError, Kind, parse, specifiedRules, validate, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import type { SubscribePayload } from 'graphql-ws';
import type { Config } from '../config';
import { badRequest, truncateText } from '../errors';
import { checkVariablesAndCost, checkVariableSizes, documentLimitRules } from '../graphql/request-guards';

/** A subscribe message that passed every check: what execution needs. */
export interface CheckedOperation {
  document: DocumentNode;
  operation: OperationDefinitionNode;
  operationName: string | undefined;
  variables: Record<string, unknown>;
}

/** The message's operation, or why it is refused. */
export type OperationCheck = { checked: CheckedOperation } | { refused: readonly GraphQLError[] };

/**
 * The bounds /graphql puts on a request (request-guards.ts), applied to a subscribe message in the
 * same order: tokens while parsing, depth, aliases and directives while validating, then the
 * operation, the raw variables' sizes, their coercion and the estimated cost. A refusal is a list
 * of GraphQL errors, answered on that subscription alone (graphql-ws's `error` message).
 */
export function createOperationGuards(schema: GraphQLSchema, config: Config) {
  const production = config.nodeEnv === 'production';
  const rules = [...specifiedRules, ...documentLimitRules(config.limits)];
  const hideSuggestions = production ? suggestionMask() : (errors: readonly GraphQLError[]) => errors;

  return (payload: SubscribePayload): OperationCheck => {
    let document: DocumentNode;
    try {
      document = parse(payload.query, { maxTokens: config.limits.graphqlMaxTokens });
    } catch (error) {
      if (error instanceof GraphQLError) return { refused: [withCode(error, 'GRAPHQL_PARSE_FAILED')] };
      throw error;
    }
    const invalid = validate(schema, document, rules, { maxErrors: 20, hideSuggestions: production });
    if (invalid.length) return { refused: hideSuggestions(invalid).map((error) => withCode(error, 'GRAPHQL_VALIDATION_FAILED')) };
    const operationName = payload.operationName ?? undefined;
    const variables = payload.variables ?? {};
    try {
      const operation = requireSubscription(document, operationName);
      checkVariableSizes(variables, config.limits);
      checkVariablesAndCost(schema, { document, operation, operationName, variables }, config, production);
      return { checked: { document, operation, operationName, variables } };
    } catch (error) {
      if (error instanceof GraphQLError) return { refused: [error] };
      throw error;
    }
  };
}

function requireSubscription(document: DocumentNode, operationName: string | undefined): OperationDefinitionNode {
  const operation = getOperationAST(document, operationName);
  if (!operation) {
    const count = document.definitions.filter((definition) => definition.kind === Kind.OPERATION_DEFINITION).length;
    if (operationName) {
      throw badRequest(`No operation named "${truncateText(operationName, 100)}" in the document`, [{ field: 'operationName', message: 'must name one of the operations of the document' }]);
    }
    throw badRequest(count === 0 ? 'The document has no operation' : `The document has ${count} operations: say which to run with operationName`, [
      { field: 'operationName', message: 'required when the document has more than one operation' },
    ]);
  }
  if (operation.operation !== 'subscription') {
    throw badRequest(`Only subscriptions are served over WebSocket: send this ${operation.operation} to POST /graphql`, [{ field: 'query', message: 'expected a subscription' }]);
  }
  return operation;
}

/** graphql-js's errors carry no code; Apollo gives these two, and the error formatter keeps their messages. */
function withCode(error: GraphQLError, code: string): GraphQLError {
  return new GraphQLError(error.message, { nodes: error.nodes, source: error.source, positions: error.positions, extensions: { ...error.extensions, code } });
}

/** graphql-armor's block-field-suggestions on validation errors, as apollo.ts runs it over HTTP in production. */
function suggestionMask(): (errors: readonly GraphQLError[]) => readonly GraphQLError[] {
  const armor = blockFieldSuggestionsPlugin();
  return (errors) => {
    const onValidateEnd = armor.onValidate?.({} as never);
    let masked: readonly GraphQLError[] = errors;
    if (typeof onValidateEnd === 'function') onValidateEnd({ valid: false, result: [...errors], setResult: (result: readonly GraphQLError[]) => (masked = result) } as never);
    return masked;
  };
}
