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
import { compareValues } from './bson-values';
import { bitsQueryOperator, typeQueryOperator } from './bson-type-operators';
import { collectPathValues } from './document-paths';
import { CommandError } from './errors';
import { sortDocuments } from './sort-order';
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

const ENGINE_CONTEXT = Context.init({
  accumulator: accumulatorOperators,
  expression: {
    ...expressionOperators,
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
    $sort: (collection: { transform: (f: (documents: Document[]) => unknown) => unknown }, sortSpec: Document) =>
      collection.transform((documents) => Lazy(sortDocuments(documents, sortSpec))),
  } as typeof pipelineOperators,
  projection: projectionOperators,
  query: {
    ...queryOperators,
    ...Object.fromEntries(['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin'].map((name) => [name, exactQueryOperator(name, query[name])])),
    $type: typeQueryOperator,
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
