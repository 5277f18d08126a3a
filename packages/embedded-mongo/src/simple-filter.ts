import type { Document } from 'bson';
import { compareValues, isPlainObject, typeRank, valueKey } from './bson-values';
import { collectPathValues } from './document-paths';

type ValuePredicate = (values: unknown[]) => boolean;

/**
 * A matcher for the filters applications send most (equality, `$eq`, `$in`, and `$gt/$gte/$lt/$lte`
 * on plain scalar values) that avoids building a mingo query (whose set-up dominates the cost of
 * a single-document lookup). Returns undefined for anything else, which then goes to mingo.
 *
 * Semantics follow MongoDB: a condition holds if any value reached by the path (arrays expanded
 * one level at the end, traversed on the way) satisfies it; each operator of a range may be met
 * by a different array element; comparisons only hold within one BSON type class.
 */
export function compileSimpleFilter(filter: Document): ((document: Document) => boolean) | undefined {
  const checks: Array<{ path: string; segments: string[]; test: ValuePredicate }> = [];
  for (const [path, condition] of Object.entries(filter)) {
    if (path.startsWith('$') || path.length === 0) return undefined;
    const test = compileCondition(condition);
    if (!test) return undefined;
    checks.push({ path, segments: path.split('.'), test });
  }
  return (document) => {
    for (const { path, segments, test } of checks) if (!test(valuesAt(document, path, segments))) return false;
    return true;
  };
}

const NO_VALUES: unknown[] = [];
/**
 * The one value a path reached, handed to a predicate without an array of its own (a filter runs
 * on thousands of documents a query). Predicates read it at once and keep no reference, and
 * matching is synchronous, so one array serves every call.
 */
const ONE_VALUE: unknown[] = [undefined];

/** The values a path reaches; a path that meets no array (the common case) allocates nothing. */
function valuesAt(document: Document, path: string, segments: string[]): unknown[] {
  let current: unknown = document;
  for (let depth = 0; depth < segments.length; depth += 1) {
    if (Array.isArray(current)) return collectPathValues(document, path);
    if (!isPlainObject(current)) return NO_VALUES;
    current = current[segments[depth]];
  }
  if (current === undefined) return NO_VALUES;
  if (Array.isArray(current)) return current;
  ONE_VALUE[0] = current;
  return ONE_VALUE;
}

function isSimpleScalar(value: unknown): boolean {
  if (value === null || value === undefined || Array.isArray(value) || value instanceof RegExp || isPlainObject(value)) return false;
  if (typeof value === 'number' && Number.isNaN(value)) return false;
  const rank = typeRank(value);
  // numbers, strings, BinData, ObjectId, booleans, dates
  return rank === 3 || rank === 4 || rank === 7 || rank === 8 || rank === 9 || rank === 10;
}

function compileCondition(condition: unknown): ValuePredicate | undefined {
  if (isSimpleScalar(condition)) return equalsOne(condition);
  if (!isPlainObject(condition)) return undefined;
  const operators = Object.entries(condition);
  if (operators.length === 0) return undefined;
  const predicates: ValuePredicate[] = [];
  for (const [operator, operand] of operators) {
    switch (operator) {
      case '$eq':
        if (!isSimpleScalar(operand)) return undefined;
        predicates.push(equalsOne(operand));
        break;
      case '$in':
        if (!Array.isArray(operand) || operand.length === 0 || !operand.every(isSimpleScalar)) return undefined;
        predicates.push(equalsAny(new Set(operand.map(valueKey))));
        break;
      case '$gt':
      case '$gte':
      case '$lt':
      case '$lte':
        if (!isSimpleScalar(operand)) return undefined;
        predicates.push(compares(operator, operand));
        break;
      default:
        return undefined;
    }
  }
  return (values) => predicates.every((predicate) => predicate(values));
}

/**
 * MongoDB's matching for one comparison operator whose operand is a plain scalar (`$eq`, `$ne`,
 * `$in`, `$nin`, `$gt`, `$gte`, `$lt`, `$lte`), for mingo to use in the filters it evaluates
 * (mingo-context.ts); undefined for other operands, which mingo keeps.
 */
export function scalarConditionPredicate(operator: string, operand: unknown): ValuePredicate | undefined {
  switch (operator) {
    case '$eq':
    case '$ne': {
      if (!isSimpleScalar(operand)) return undefined;
      const equals = equalsOne(operand);
      return operator === '$eq' ? equals : (values) => !equals(values);
    }
    case '$in':
    case '$nin': {
      if (!Array.isArray(operand) || operand.length === 0 || !operand.every(isSimpleScalar)) return undefined;
      const equals = equalsAny(new Set(operand.map(valueKey)));
      return operator === '$in' ? equals : (values) => !equals(values);
    }
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte':
      return isSimpleScalar(operand) ? compares(operator, operand) : undefined;
  }
  return undefined;
}

function equalsAny(keys: Set<string>): ValuePredicate {
  return (values) => values.some((value) => keys.has(valueKey(value)));
}

/** Equality with one scalar; strings and plain numbers compare without building value keys. */
function equalsOne(operand: unknown): ValuePredicate {
  const key = valueKey(operand);
  if (typeof operand === 'string') return (values) => values.some((value) => value === operand);
  if (typeof operand === 'number') {
    return (values) => values.some((value) => (typeof value === 'number' ? value === operand : typeRank(value) === 3 && valueKey(value) === key));
  }
  return (values) => values.some((value) => valueKey(value) === key);
}

function compares(operator: string, operand: unknown): ValuePredicate {
  const rank = typeRank(operand);
  const accept = (order: number) =>
    operator === '$gt' ? order > 0 : operator === '$gte' ? order >= 0 : operator === '$lt' ? order < 0 : order <= 0;
  return (values) => values.some((value) => typeRank(value) === rank && accept(compareValues(value, operand)));
}
