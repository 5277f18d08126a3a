import type { ApolloServerPlugin } from '@apollo/server';
import { blockFieldSuggestionsPlugin } from '@escape.tech/graphql-armor-block-field-suggestions';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives';
import {
  BREAK,
  getVariableValues,
  GraphQLError,
  Kind,
  type DocumentNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import { fieldExtensionsEstimator, getComplexity, simpleEstimator } from 'graphql-query-complexity';
import { LRUCache } from 'lru-cache';
import { authenticationRequired } from '../auth';
import type { Config } from '../config';
import type { GraphQLContext } from '../graphql-kit/context';
import { AppError, badRequest, ErrorCode, invalidInput, payloadTooLarge, truncateText, type ErrorDetail } from '../errors';
import type { CostContext } from '../graphql-kit/complexity';
import { startExecutionClock } from './execution-limits';
import { introspectionLimitRule } from './introspection-limits';

/*
 * Every bound on a GraphQL request's work is checked before that work is spent, cheapest first:
 *   1. tokens, while parsing (graphql-js's own `maxTokens` parse option, set in apollo.ts: the
 *      parser stops at the limit, so no document is read further than that);
 *   2. depth, aliases and directives, as validation rules (graphql-armor), and introspection's
 *      breadth (introspection-limits.ts: one __schema, a few __type, no aliases inside them);
 *   3. the operation exists and is a query or mutation;
 *   4. a token, when the operation needs one (anonymous callers stop here, before their variables
 *      are read);
 *   5. the sizes of the raw variables (list lengths, string lengths, nesting), before coercion;
 *   6. variable coercion, stopping at the first errors;
 *   7. the estimated cost;
 *   8. then the execution clock starts (see execution-limits.ts).
 * Steps 3–8 run in one hook, in this order: Apollo runs the hooks of several plugins together.
 */

/** Root fields anyone may ask for: introspection (Sandbox loads the schema) and the template link. */
const PUBLIC_ROOT_FIELDS = new Set(['__typename', '__schema', '__type', 'passengerTemplateUrl']);

/** Coercion errors reported before giving up on the variables. */
const MAX_COERCION_ERRORS = 20;

/** Deepest nesting of the variables; the schema's inputs nest three levels (changes.created[i].field). */
const MAX_VARIABLE_DEPTH = 16;

/**
 * The validation rules of step 2: each reports its error (400) rather than throwing (500). The depth
 * rule leaves introspection out (explorers' queries are deep): graphql-js's MaxIntrospectionDepthRule
 * (among the specified rules) bounds how deep it nests, and introspectionLimitRule how broad it is.
 */
export function documentLimitRules(limits: Config['limits']): ValidationRule[] {
  const common = { exposeLimits: true, propagateOnRejection: false, onReject: [(context: ValidationContext | null, error: GraphQLError) => context?.reportError(error)] };
  return [
    maxDepthRule({ ...common, n: limits.graphqlMaxDepth, ignoreIntrospection: true }),
    maxAliasesRule({ ...common, n: limits.graphqlMaxAliases }),
    maxDirectivesRule({ ...common, n: limits.graphqlMaxDirectives }),
    introspectionLimitRule,
  ].map(withStackGuard);
}

/**
 * The armor rules follow fragment spreads by recursion: a chain of a few thousand fragments
 * overflows the stack (a RangeError, which Apollo answers with 500). Within the token limit no
 * chain is that long, but a raised limit must not turn a client's document into a 500.
 */
function withStackGuard(rule: ValidationRule): ValidationRule {
  return (context) => {
    const visitor = rule(context) as unknown as Record<string, unknown>;
    const guard = (handler: unknown, self: unknown) =>
      typeof handler !== 'function'
        ? handler
        : (...args: unknown[]) => {
            try {
              return (handler as (...a: unknown[]) => unknown).apply(self, args);
            } catch (error) {
              if (!(error instanceof RangeError)) throw error;
              context.reportError(tooDeeplyNested());
              return BREAK;
            }
          };
    const guarded: Record<string, unknown> = {};
    for (const [kind, handler] of Object.entries(visitor)) {
      guarded[kind] =
        typeof handler === 'object' && handler !== null
          ? Object.fromEntries(Object.entries(handler).map(([phase, fn]) => [phase, guard(fn, visitor)]))
          : guard(handler, visitor);
    }
    return guarded as ReturnType<ValidationRule>;
  };
}

function tooDeeplyNested(): GraphQLError {
  return new GraphQLError('The document nests fragments too deeply to be checked: flatten its fragments');
}

/** Step 3: the operation Apollo resolved, or a 400 saying why there is none. */
function requireOperation(document: DocumentNode, operation: OperationDefinitionNode | undefined, operationName: string | null | undefined): OperationDefinitionNode {
  if (!operation) {
    const names = document.definitions.flatMap((definition) => (definition.kind === Kind.OPERATION_DEFINITION ? [definition.name?.value ?? '(anonymous)'] : []));
    const listed = truncateText(names.join(', '));
    if (operationName) {
      throw badRequest(`No operation named "${truncateText(operationName, 100)}" in the document (it has: ${listed})`, [{ field: 'operationName', message: 'must name one of the operations of the document' }]);
    }
    if (names.length === 0) throw badRequest('The document has no operation', [{ field: 'query', message: 'expected a query or a mutation' }]);
    throw badRequest(`The document has ${names.length} operations (${listed}): say which to run with operationName`, [{ field: 'operationName', message: 'required when the document has more than one operation' }]);
  }
  if (operation.operation === 'subscription') {
    throw badRequest('Subscriptions are served over WebSocket (graphql-ws) on /graphql, not over HTTP: send a query or a mutation here', [
      { field: 'query', message: 'expected a query or a mutation' },
    ]);
  }
  return operation;
}

/** Step 4: the root fields the operation selects, through fragments, without recursion. */
function rootFieldNames(document: DocumentNode, operation: OperationDefinitionNode): Set<string> {
  const fragments = new Map(document.definitions.flatMap((definition) => (definition.kind === Kind.FRAGMENT_DEFINITION ? [[definition.name.value, definition] as const] : [])));
  const names = new Set<string>();
  const visited = new Set<string>();
  const pending: SelectionNode[] = [...operation.selectionSet.selections];
  while (pending.length) {
    const selection = pending.pop()!;
    if (selection.kind === Kind.FIELD) names.add(selection.name.value);
    else if (selection.kind === Kind.INLINE_FRAGMENT) pending.push(...selection.selectionSet.selections);
    else if (!visited.has(selection.name.value)) {
      visited.add(selection.name.value);
      pending.push(...(fragments.get(selection.name.value)?.selectionSet.selections ?? []));
    }
  }
  return names;
}

/**
 * Step 5: walks the raw JSON variables once, without recursion, and refuses the first list longer
 * than `maxListItems`, string longer than `maxStringLength`, or nesting deeper than the schema's
 * inputs could be. A long list is refused from its length, without looking at its items.
 */
export function checkVariableSizes(variables: Record<string, unknown>, limits: Pick<Config['limits'], 'inputMaxListItems' | 'inputMaxStringLength'>): void {
  const pending: Array<{ value: unknown; path: string; depth: number }> = Object.entries(variables).map(([name, value]) => ({ value, path: `$${name}`, depth: 1 }));
  while (pending.length) {
    const { value, path, depth } = pending.pop()!;
    if (typeof value === 'string') {
      if (value.length > limits.inputMaxStringLength) {
        throw tooLarge(`${path} is a string of ${value.length} characters; at most ${limits.inputMaxStringLength} are accepted`, path, limits.inputMaxStringLength);
      }
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth > MAX_VARIABLE_DEPTH) throw invalidInput(`${path} is nested deeper than any input of the schema`, [{ field: path, message: `at most ${MAX_VARIABLE_DEPTH} levels` }]);
    if (Array.isArray(value)) {
      if (value.length > limits.inputMaxListItems) {
        throw tooLarge(`${path} holds ${value.length} items; at most ${limits.inputMaxListItems} are accepted in one list`, path, limits.inputMaxListItems);
      }
      for (let index = 0; index < value.length; index += 1) pending.push({ value: value[index], path: `${path}[${index}]`, depth: depth + 1 });
      continue;
    }
    // Only plain JSON objects: an upload's file stream is not the client's data to walk.
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) continue;
    for (const [key, member] of Object.entries(value)) pending.push({ value: member, path: `${path}.${key}`, depth: depth + 1 });
  }
}

function tooLarge(message: string, field: string, limit: number): AppError {
  const error = payloadTooLarge(message);
  return new AppError(error.code, error.message, { details: [{ field, message: `at most ${limit}`, limit }] });
}

/** Step 6: coerces the variables as execution will, but gives up after a few errors. */
export function checkVariableValues(schema: GraphQLSchema, operation: OperationDefinitionNode, variables: Record<string, unknown>, hideSuggestions: boolean): void {
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables, { maxErrors: MAX_COERCION_ERRORS, hideSuggestions });
  if (!coerced.errors) return;
  // graphql-js quotes the whole offending value; a client needs its start, not megabytes of it.
  const details: ErrorDetail[] = coerced.errors.map((error) => ({ field: 'variables', message: truncateText(error.message, COERCION_MESSAGE_CHARS) }));
  throw invalidInput(truncateText(coerced.errors[0].message, COERCION_MESSAGE_CHARS), details);
}

/** Longest variable-coercion message shown. */
const COERCION_MESSAGE_CHARS = 400;

/**
 * Costs already estimated, per parsed document (Apollo hands the same DocumentNode to every request
 * of the same text, and the REST facade's operations are fixed), by operation name, variables and
 * the two settings estimators read. The estimate is a function of these alone, so a repeated
 * request (a calendar asking for the same day, the facade's operations) reuses it instead of
 * walking the document again (measured: bench/README.md, "Small requests against a minimal
 * server"). Only variables of a flat shape are keys: every value a number, boolean, null or short
 * string (a list, an input object or an upload is estimated each time, without being read here).
 * Each document keeps at most COST_CACHE_ENTRIES keys (least recently used go first), and a
 * document Apollo's own cache lets go of takes its costs with it.
 */
const costCache = new WeakMap<DocumentNode, LRUCache<string, number>>();
const COST_CACHE_ENTRIES = 256;
const COST_CACHE_STRING_CHARS = 100;

function flatVariables(variables: Record<string, unknown>): boolean {
  for (const name in variables) {
    const value = variables[name];
    if (typeof value === 'string' ? value.length > COST_CACHE_STRING_CHARS : value !== null && value !== undefined && typeof value !== 'number' && typeof value !== 'boolean') return false;
  }
  return true;
}

/**
 * Steps 6 and 7: the variables coerced as execution will coerce them, then the estimated cost, with
 * lists costed by their real bounds (see complexity.ts). Both are functions of the document, the
 * operation, the variables and the settings alone: when the cost of the same variables is already
 * known, they were coerced without error then, and neither step is done again.
 */
export function checkVariablesAndCost(
  schema: GraphQLSchema,
  request: { document: DocumentNode; operation: OperationDefinitionNode; operationName: string | undefined; variables: Record<string, unknown> },
  config: Config,
  hideSuggestions: boolean,
): void {
  const { document, operation, operationName, variables } = request;
  const coerceAndEstimate = () => {
    checkVariableValues(schema, operation, variables, hideSuggestions);
    return estimateCost(schema, document, operationName, variables, config);
  };
  let cost: number;
  if (flatVariables(variables)) {
    let costs = costCache.get(document);
    if (!costs) costCache.set(document, (costs = new LRUCache<string, number>({ max: COST_CACHE_ENTRIES })));
    const key = `${operationName ?? ''}\n${config.limits.graphqlCostFlightsPerDay}\n${config.timezone}\n${JSON.stringify(variables)}`;
    const known = costs.get(key);
    cost = known ?? coerceAndEstimate();
    if (known === undefined) costs.set(key, cost);
  } else {
    cost = coerceAndEstimate();
  }
  const maxCost = config.limits.graphqlMaxCost;
  if (cost > maxCost) {
    throw new AppError(ErrorCode.QUERY_TOO_COMPLEX, `Query cost ${cost} exceeds the limit of ${maxCost}: select fewer fields, aliases or a shorter range, or split the query`, {
      details: [{ field: 'query', message: `estimated cost ${cost}, limit ${maxCost}`, cost, maxCost }],
    });
  }
}

/** The cost graphql-query-complexity estimates; a document it cannot estimate is the client's error (400). */
function estimateCost(schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined, variables: Record<string, unknown>, config: Config): number {
  try {
    return getComplexity({
      schema,
      query: document,
      variables,
      operationName,
      context: { flightsPerDay: config.limits.graphqlCostFlightsPerDay, timezone: config.timezone } satisfies CostContext,
      estimators: [fieldExtensionsEstimator(), simpleEstimator({ defaultComplexity: 1 })],
    });
  } catch (error) {
    if (error instanceof GraphQLError) throw invalidInput(error.message);
    if (error instanceof RangeError) throw invalidInput(tooDeeplyNested().message);
    throw error;
  }
}

/** One request to check: its parsed document, the operation resolved in it (if any), its raw variables. */
export interface GuardedRequest {
  document: DocumentNode;
  operation: OperationDefinitionNode | undefined;
  operationName: string | null | undefined;
  variables: Record<string, unknown> | undefined;
  context: GraphQLContext;
}

/**
 * Steps 3–8, in order, for one request: throws the AppError of the first that fails, else starts
 * the execution clock. Apollo's requests run it from `requestGuardsPlugin`; the REST facade's
 * prepared operations (prepared-operation.ts) call it directly.
 */
export function createRequestGuards(schema: GraphQLSchema, config: Config): (request: GuardedRequest) => void {
  const hideSuggestions = config.nodeEnv === 'production';
  return ({ document, operation, operationName, variables = {}, context }) => {
    const resolved = requireOperation(document, operation, operationName);
    if (!context.principal) {
      const names = rootFieldNames(document, resolved);
      if ([...names].some((name) => !PUBLIC_ROOT_FIELDS.has(name))) throw authenticationRequired();
    }
    checkVariableSizes(variables, config.limits);
    checkVariablesAndCost(schema, { document, operation: resolved, operationName: operationName ?? undefined, variables }, config, hideSuggestions);
    startExecutionClock(context, config.limits.graphqlTimeoutMs);
  };
}

/** Steps 3–8 as one Apollo plugin; put it before any plugin that executes. */
export function requestGuardsPlugin(schema: GraphQLSchema, config: Config): ApolloServerPlugin<GraphQLContext> {
  const guard = createRequestGuards(schema, config);
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ document, operation, request, contextValue }) {
          guard({ document, operation, operationName: request.operationName, variables: request.variables, context: contextValue });
        },
      };
    },
  };
}

/**
 * graphql-armor's block-field-suggestions, run on Apollo's validation errors: "Did you mean …"
 * names fields and types of the schema, which production keeps to itself.
 */
export function blockFieldSuggestions(): ApolloServerPlugin<GraphQLContext> {
  const armor = blockFieldSuggestionsPlugin();
  return {
    async requestDidStart() {
      return {
        async validationDidStart() {
          return async (errors) => {
            if (!errors?.length) return;
            const onValidateEnd = armor.onValidate?.({} as never);
            if (typeof onValidateEnd !== 'function') return;
            // The armor formatter rewrites each error's message in place; Apollo builds its answer from the same objects.
            onValidateEnd({ valid: false, result: errors, setResult: () => undefined } as never);
          };
        },
      };
    },
  };
}
