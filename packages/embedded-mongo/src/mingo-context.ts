import type { Document } from 'bson';
import { Aggregator as MingoAggregator } from 'mingo/aggregator';
import { Context, evalExpr } from 'mingo/core';
import { Lazy } from 'mingo/lazy';
import * as accumulatorOperators from 'mingo/operators/accumulator';
import * as expressionOperators from 'mingo/operators/expression';
import * as pipelineOperators from 'mingo/operators/pipeline';
import * as projectionOperators from 'mingo/operators/projection';
import * as queryOperators from 'mingo/operators/query';
import * as windowOperators from 'mingo/operators/window';
import { Query as MingoQuery } from 'mingo/query';
import type { Options } from 'mingo/types';
import { compareValues, isNumeric, isPlainObject } from './bson-values';
import { bitsQueryOperator, typeExpression, typeQueryOperator } from './bson-type-operators';
import { collectPathValues } from './document-paths';
import { CommandError } from './errors';
import { sortDocuments } from './sort-order';
import { plainNumbers } from './numeric-types';
import { scalarConditionPredicate } from './simple-filter';

/**
 * mingo with MongoDB's value order where mingo's differs. mingo compares values of one JavaScript
 * class by their strings and refuses comparisons across classes, so int64 values above 2^53 (kept
 * as `Long`), and mixed number classes, compare wrongly inside `$or`, `$elemMatch`, `$expr` and
 * later pipeline stages. Here the comparison operators and `$sort` use the engine's own BSON
 * order (bson-values.ts), the one the plain-filter fast path, indexes and sorts already use:
 *
 * - query `$eq`, `$ne`, `$gt`, `$gte`, `$lt`, `$lte`, `$in`, `$nin` with a scalar operand: MongoDB's
 *   matching (any value the path reaches, type-bracketed ranges); other operands stay with mingo;
 * - expression `$eq`, `$ne`, `$gt`, `$gte`, `$lt`, `$lte`, `$cmp`: the total BSON order, a missing
 *   value below null (as in MongoDB's aggregation expressions);
 * - the `$sort` stage: MongoDB's sort order across types, arrays by their smallest/largest element;
 * - `$type` and `$bits*` over every BSON type the engine stores (bson-type-operators.ts).
 */

type QueryOperator = (selector: string, value: unknown, options: Options) => (document: Document) => boolean;

function exactQueryOperator(operator: string, fallback: QueryOperator): QueryOperator {
  return (selector, value, options) => {
    const predicate = scalarConditionPredicate(operator, value);
    if (!predicate) return fallback(selector, value, options);
    return (document) => predicate(collectPathValues(document, selector));
  };
}

/** Aggregation comparison: a missing value sorts below everything (null included) and equals only itself. */
function compareExpressionValues(a: unknown, b: unknown): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? -1 : 1;
  return compareValues(a, b);
}

function exactExpression(name: string, answer: (order: number) => boolean | number) {
  return (document: Document, expression: unknown, options: Options): boolean | number => {
    if (!Array.isArray(expression) || expression.length !== 2) {
      throw new CommandError(16020, `Expression ${name} takes exactly 2 arguments. ${Array.isArray(expression) ? expression.length : 1} were passed in.`);
    }
    const [a, b] = evalExpr(document, expression, options) as [unknown, unknown];
    return answer(compareExpressionValues(a, b));
  };
}

const query = queryOperators as unknown as Record<string, QueryOperator>;

/**
 * mingo computes with JavaScript numbers only; a kept int64 or integral double (numeric-types.ts)
 * reaches these operators as a plain number. Their results are typed by value (int32 or double),
 * not by MongoDB's promotion rules (documented in the README).
 */
const NUMERIC_EXPRESSIONS = [
  '$abs', '$add', '$ceil', '$divide', '$exp', '$floor', '$ln', '$log', '$log10', '$mod', '$multiply', '$pow', '$round',
  '$sigmoid', '$sqrt', '$subtract', '$trunc', '$sum', '$avg', '$min', '$max', '$stdDevPop', '$stdDevSamp', '$median',
  '$percentile', '$range', '$bitAnd', '$bitOr', '$bitXor', '$bitNot', '$acos', '$acosh', '$asin', '$asinh', '$atan',
  '$atan2', '$atanh', '$cos', '$cosh', '$degreesToRadians', '$radiansToDegrees', '$sin', '$sinh', '$tan', '$tanh',
  '$convert', '$toBool', '$toDate', '$toDecimal', '$toDouble', '$toInt', '$toLong', '$toString', '$concat',
  '$dateAdd', '$dateSubtract', '$dateFromParts', '$substr', '$substrBytes', '$substrCP', '$indexOfBytes', '$indexOfCP',
  '$slice', '$firstN', '$lastN', '$maxN', '$minN', '$arrayElemAt',
];
const NUMERIC_ACCUMULATORS = ['$sum', '$avg', '$min', '$max', '$stdDevPop', '$stdDevSamp', '$median', '$percentile', '$covariancePop', '$covarianceSamp', '$minN', '$maxN'];

/** The engine's own expression operator that evaluates a `$group` key with plain numbers. */
const GROUP_KEY_OPERATOR = '$__engineGroupKey';

type GroupArguments = Parameters<typeof pipelineOperators.$group>;

type ExpressionOperator = (document: unknown, expression: unknown, options: Options) => unknown;

/** An operand evaluated already, quoted so that mingo takes its values as they are (same shape: list, object or one). */
function quoteEvaluated(expression: unknown, evaluated: unknown): unknown {
  if (Array.isArray(expression) && Array.isArray(evaluated)) return evaluated.map((value) => ({ $literal: value }));
  if (isPlainObject(expression) && !Object.keys(expression).some((key) => key.startsWith('$')) && isPlainObject(evaluated)) {
    return Object.fromEntries(Object.entries(evaluated).map(([key, value]) => [key, { $literal: value }]));
  }
  return { $literal: evaluated };
}

/** Expression operators that receive their operand's values as plain numbers (field paths resolve against the root, so the operand is evaluated here). */
function expressionsWithPlainNumbers(operators: Record<string, unknown>, names: string[]): Record<string, unknown> {
  const wrapped: Record<string, unknown> = { ...operators };
  for (const name of names) {
    const operator = operators[name] as ExpressionOperator | undefined;
    if (!operator) continue;
    wrapped[name] = (document: unknown, expression: unknown, options: Options) =>
      operator(document, quoteEvaluated(expression, plainNumbers(evalExpr(document, expression, options))), options);
  }
  return wrapped;
}

/** Accumulators evaluate their expression on each document of the group, which becomes the root: plain copies suffice. */
function accumulatorsWithPlainNumbers<T extends Record<string, unknown>>(operators: T, names: string[]): T {
  const wrapped: Record<string, unknown> = { ...operators };
  for (const name of names) {
    const operator = operators[name] as ExpressionOperator | undefined;
    if (operator) wrapped[name] = (collection: unknown, expression: unknown, options: Options) => operator(plainNumbers(collection), plainNumbers(expression), options);
  }
  return wrapped as T;
}

const ENGINE_CONTEXT = Context.init({
  accumulator: accumulatorsWithPlainNumbers(accumulatorOperators, NUMERIC_ACCUMULATORS),
  expression: {
    ...(expressionsWithPlainNumbers(expressionOperators, NUMERIC_EXPRESSIONS) as typeof expressionOperators),
    [GROUP_KEY_OPERATOR]: (document: Document, expression: unknown, options: Options) => plainNumbers(evalExpr(document, expression, options)),
    $type: (document: Document, expression: unknown, options: Options) => typeExpression(evalExpr(document, expression, options)),
    $isNumber: (document: Document, expression: unknown, options: Options) => isNumeric(evalExpr(document, expression, options)),
    $eq: exactExpression('$eq', (order) => order === 0),
    $ne: exactExpression('$ne', (order) => order !== 0),
    $gt: exactExpression('$gt', (order) => order > 0),
    $gte: exactExpression('$gte', (order) => order >= 0),
    $lt: exactExpression('$lt', (order) => order < 0),
    $lte: exactExpression('$lte', (order) => order <= 0),
    $cmp: exactExpression('$cmp', (order) => Math.sign(order)),
  },
  pipeline: {
    ...pipelineOperators,
    // Groups by value as MongoDB does: 1, NumberLong(1) and 1.0 are one group (mingo hashes by class).
    $group: (collection: GroupArguments[0], specification: GroupArguments[1], options: Options) =>
      pipelineOperators.$group(
        collection,
        isPlainObject(specification) && '_id' in specification ? ({ ...specification, _id: { [GROUP_KEY_OPERATOR]: specification._id } } as GroupArguments[1]) : specification,
        options,
      ),
    $sort: (collection: { transform: (f: (documents: Document[]) => unknown) => unknown }, sortSpec: Document) =>
      collection.transform((documents) => Lazy(sortDocuments(documents, sortSpec))),
  } as typeof pipelineOperators,
  projection: projectionOperators,
  query: {
    ...queryOperators,
    ...Object.fromEntries(['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin'].map((name) => [name, exactQueryOperator(name, query[name])])),
    $type: typeQueryOperator,
    $mod: (selector: string, value: unknown, options: Options) => {
      const operand = plainNumbers(value);
      query.$mod(selector, operand, options); // mingo's checks of the operand
      const [divisor, remainder] = (operand as number[]).map((part) => Math.trunc(Number(part)));
      return (document: Document) =>
        collectPathValues(document, selector).some((found) => isNumeric(found) && Math.trunc(Number(plainNumbers(found))) % divisor === remainder);
    },
    $bitsAllSet: bitsQueryOperator('$bitsAllSet'),
    $bitsAnySet: bitsQueryOperator('$bitsAnySet'),
    $bitsAllClear: bitsQueryOperator('$bitsAllClear'),
    $bitsAnyClear: bitsQueryOperator('$bitsAnyClear'),
  } as typeof queryOperators,
  window: windowOperators,
});

/** Whether the aggregation stage exists (mingo's stages, which the engine runs). */
export function isKnownStage(name: string): boolean {
  return Object.prototype.hasOwnProperty.call(pipelineOperators, name);
}

/** A mingo query with the engine's comparisons (and the command's `let` variables). */
export function engineQuery(filter: Document, variables?: Document): MingoQuery {
  return new MingoQuery(filter, { context: ENGINE_CONTEXT, ...(variables ? { variables } : {}) } as Partial<Options>);
}

/** A mingo aggregation pipeline with the engine's comparisons and `$sort`. */
export function engineAggregator(pipeline: Document[], options: Partial<Options> = {}): MingoAggregator {
  return new MingoAggregator(pipeline, { ...options, context: ENGINE_CONTEXT } as Partial<Options>);
}

/** Options for mingo's updater, whose conditions (`$pull`, positional filters) match like queries. */
export const ENGINE_QUERY_OPTIONS = { context: ENGINE_CONTEXT } as Partial<Options>;
