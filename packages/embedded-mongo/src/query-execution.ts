import type { Document } from 'bson';
import { isPlainObject, valueKey } from './bson-values';
import type { Collection } from './collection';
import type { CollectionIndex } from './indexes';
import { CommandError, ErrorCode, unknownOperatorError } from './errors';
import { engineQuery } from './mingo-context';
import { candidateDocuments } from './query-planner';
import { compileSimpleFilter } from './simple-filter';
import { sortDocuments } from './sort-order';

export { sortDocuments } from './sort-order';

export type DocumentMatcher = (document: Document) => boolean;

/** Compiles a query filter once (the simple-filter fast path, else mingo) so it can test many candidates. */
export function compileFilter(filter: unknown, collection?: Collection, variables?: Document): DocumentMatcher {
  if (filter === undefined || filter === null) return () => true;
  if (!isPlainObject(filter)) throw new CommandError(ErrorCode.TypeMismatch, "BSON field 'filter' is the wrong type, expected type 'object'");
  if (Object.keys(filter).length === 0) return () => true;
  const simple = compileSimpleFilter(filter);
  if (simple) return simple;
  const query = compileMingoQuery(prepareFilter(filter, collection), variables);
  return (document) => query.test(document);
}

function compileMingoQuery(filter: Document, variables: Document | undefined): ReturnType<typeof engineQuery> {
  try {
    return engineQuery(filter, variables);
  } catch (error) {
    throw unknownOperatorError(error instanceof Error ? error.message : String(error)) ?? error;
  }
}

const GEO_OPERATORS = new Set(['$near', '$nearSphere', '$geoWithin', '$geoIntersects', '$within']);

function hasIndexOfType(collection: Collection | undefined, types: string[]): boolean {
  if (!collection) return false;
  for (const index of collection.indexes.values()) if (Object.values(index.spec.key).some((type) => types.includes(String(type)))) return true;
  return false;
}

/**
 * Checks a filter once per command before it reaches mingo, and rewrites what mingo gets wrong:
 * operators the engine cannot run (`$where`, `$text`, geo queries) are refused with MongoDB's error
 * or CommandNotSupported rather than ignored, and `$all` becomes the `$and` of equalities MongoDB
 * defines it as (so `{tags: {$all: ['a']}}` also matches the scalar `'a'`).
 */
export function prepareFilter(filter: Document, collection: Collection | undefined): Document {
  let rewritten: Document | undefined;
  const extraClauses: Document[] = [];
  for (const [key, condition] of Object.entries(filter)) {
    let replacement: unknown = condition;
    if (key === '$where') {
      throw new CommandError(ErrorCode.CommandNotSupported, '$where (server-side JavaScript) is not supported by the embedded development engine; set MONGODB_URI to use a real MongoDB.');
    } else if (key === '$text') {
      if (!hasIndexOfType(collection, ['text'])) throw new CommandError(ErrorCode.IndexNotFound, 'text index required for $text query');
      throw new CommandError(ErrorCode.CommandNotSupported, '$text queries are not supported by the embedded development engine; set MONGODB_URI to use a real MongoDB.');
    } else if ((key === '$and' || key === '$or' || key === '$nor') && Array.isArray(condition)) {
      const clauses = condition.map((clause) => (isPlainObject(clause) ? prepareFilter(clause, collection) : clause));
      if (clauses.some((clause, i) => clause !== condition[i])) replacement = clauses;
    } else if (!key.startsWith('$') && isPlainObject(condition)) {
      const clauses = prepareCondition(key, condition, collection);
      if (clauses) {
        extraClauses.push(...clauses);
        replacement = undefined;
      }
    }
    if (replacement !== condition) {
      rewritten ??= { ...filter };
      if (replacement === undefined) delete rewritten[key];
      else rewritten[key] = replacement;
    }
  }
  if (!rewritten) return filter;
  if (extraClauses.length > 0) rewritten.$and = [...(Array.isArray(rewritten.$and) ? rewritten.$and : []), ...extraClauses];
  return rewritten;
}

/**
 * Checks a field's condition; when it uses `$all`, returns the clauses that replace it
 * (`{a: {$all: [x, y]}}` is `{$and: [{a: x}, {a: y}]}` in MongoDB; an empty list matches nothing).
 */
function prepareCondition(path: string, condition: Document, collection: Collection | undefined): Document[] | undefined {
  let clauses: Document[] | undefined;
  for (const [operator, operand] of Object.entries(condition)) {
    if (GEO_OPERATORS.has(operator)) {
      if ((operator === '$near' || operator === '$nearSphere') && !hasIndexOfType(collection, ['2d', '2dsphere'])) {
        throw new CommandError(291, 'error processing query: planner returned error :: caused by :: unable to find index for $geoNear query');
      }
      throw new CommandError(ErrorCode.CommandNotSupported, `geo queries (${operator}) are not supported by the embedded development engine; set MONGODB_URI to use a real MongoDB.`);
    }
    if (operator === '$not' && isPlainObject(operand)) prepareCondition(path, operand, collection);
    if (operator === '$elemMatch' && isPlainObject(operand)) prepareFilter(operand, collection);
    if (operator === '$all' && Array.isArray(operand)) {
      const { $all: _all, ...rest } = condition;
      clauses = operand.length === 0 ? [{ [path]: { $in: [] } }] : operand.map((element) => ({ [path]: element }));
      if (Object.keys(rest).length > 0) clauses.push({ [path]: rest });
    }
  }
  return clauses;
}

export interface MatchOptions {
  sort?: Document;
  skip?: number;
  limit?: number;
  /** The command's `let` variables. */
  variables?: Document;
  /** The command's `hint`: without a sort, results come in that index's order (and a sparse or partial index omits what it does not hold), as on MongoDB. */
  hint?: unknown;
}

/** The index a `hint` names (by name or key pattern); undefined for none or `$natural`. */
export function hintedIndex(collection: Collection, hint: unknown): CollectionIndex | undefined {
  if (typeof hint === 'string') return collection.indexes.get(hint);
  if (!isPlainObject(hint) || Object.keys(hint).length === 0 || '$natural' in hint) return undefined;
  const wanted = valueKey(hint);
  for (const index of collection.indexes.values()) if (valueKey(index.spec.key) === wanted) return index;
  return undefined;
}

/** The sort an index scan yields (ascending/descending fields only; text, geo and hashed keys have none). */
function indexOrder(index: CollectionIndex): Document | undefined {
  const order: Document = {};
  for (const [field, direction] of Object.entries(index.spec.key)) {
    if (direction !== 1 && direction !== -1) return undefined;
    order[field] = direction;
  }
  return order;
}

/**
 * Documents in the order an index scan of the hinted index returns them, restricted to the
 * documents it holds; undefined when there is no such hint.
 */
export function inHintedOrder(collection: Collection, documents: Iterable<Document>, hint: unknown, keep?: number): Document[] | undefined {
  const index = hint === undefined ? undefined : hintedIndex(collection, hint);
  const order = index && indexOrder(index);
  if (!index || !order) return undefined;
  const held = [...documents].filter((document) => index.keysOf(document) !== undefined);
  return sortDocuments(held, order, keep);
}

/**
 * The stored documents that match, sorted and windowed. Returns the stored objects themselves:
 * callers must not mutate them (they are serialised or copied before any change).
 */
export function findMatchingDocuments(collection: Collection | undefined, filter: Document | undefined, options: MatchOptions = {}): Document[] {
  // Compiled first: a malformed filter is refused even when the collection does not exist.
  const matches = compileFilter(filter, collection, options.variables);
  if (!collection) return [];
  const skip = Math.max(0, options.skip ?? 0);
  const limit = options.limit && options.limit > 0 ? options.limit : undefined;
  const sortSpec = options.sort && Object.keys(options.sort).length > 0 ? options.sort : undefined;
  // {$natural: 1} is the stored (insertion) order the engine returns anyway; -1 reverses it.
  const natural = sortSpec && Object.keys(sortSpec).length === 1 && '$natural' in sortSpec ? Number(sortSpec.$natural) : undefined;
  if (natural !== undefined) {
    if (natural !== 1 && natural !== -1) throw new CommandError(ErrorCode.BadValue, '$natural sort cannot be set to a value other than -1 or 1');
    const all = [...collection.documents.values()].filter(matches);
    if (natural === -1) all.reverse();
    return all.slice(skip, limit === undefined ? undefined : skip + limit);
  }
  if (!sortSpec && options.hint !== undefined) {
    const end = limit === undefined ? undefined : skip + limit;
    const hinted = inHintedOrder(collection, [...candidateDocuments(collection, filter)].filter(matches), options.hint, end);
    if (hinted) return hinted.slice(skip, end);
  }
  const results: Document[] = [];
  if (!sortSpec) {
    let skipped = 0;
    for (const document of candidateDocuments(collection, filter)) {
      if (!matches(document)) continue;
      if (skipped < skip) {
        skipped += 1;
        continue;
      }
      results.push(document);
      if (limit !== undefined && results.length >= limit) break;
    }
    return results;
  }
  for (const document of candidateDocuments(collection, filter)) if (matches(document)) results.push(document);
  const sorted = sortDocuments(results, sortSpec, limit === undefined ? undefined : skip + limit);
  return sorted.slice(skip, limit === undefined ? undefined : skip + limit);
}

