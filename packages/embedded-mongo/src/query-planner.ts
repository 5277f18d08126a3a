import type { Document } from 'bson';
import { isPlainObject, typeRank } from './bson-values';
import type { Collection } from './collection';
import type { CollectionIndex } from './indexes';
import type { RangeBound } from './sorted-key-list';

/**
 * Picks, from the collection's indexes, a set of candidate documents that is guaranteed to
 * contain every match of the filter, so the full filter then runs on candidates only instead of
 * the whole collection. Only the leading field of an index is used, for equality, `$in` and
 * ranges; anything else falls back to a collection scan.
 */

interface Plan {
  rank: number;
  keys: () => Iterable<string>;
}

/** Values an index lookup can answer exactly (null, arrays, documents and regexes need a scan). */
function isLookupValue(value: unknown): boolean {
  if (value === null || value === undefined || Array.isArray(value) || value instanceof RegExp) return false;
  if (isPlainObject(value)) return false;
  const rank = typeRank(value);
  return rank !== 5 && rank !== 12;
}

function isOperatorObject(value: unknown): value is Document {
  return isPlainObject(value) && Object.keys(value).length > 0 && Object.keys(value).every((key) => key.startsWith('$'));
}

function planForCondition(index: CollectionIndex, condition: unknown): Plan | undefined {
  const uniqueBonus = index.unique ? 0 : 1;
  if (!isOperatorObject(condition)) {
    if (!isLookupValue(condition)) return undefined;
    return { rank: uniqueBonus, keys: () => index.lookupEqual(condition) };
  }
  if ('$eq' in condition && isLookupValue(condition.$eq)) {
    return { rank: uniqueBonus, keys: () => index.lookupEqual(condition.$eq) };
  }
  if (Array.isArray(condition.$in) && condition.$in.length > 0 && condition.$in.every(isLookupValue)) {
    const values = condition.$in as unknown[];
    return {
      rank: 2 + uniqueBonus,
      keys: () => {
        const keys = new Set<string>();
        for (const value of values) for (const key of index.lookupEqual(value)) keys.add(key);
        return keys;
      },
    };
  }
  const lower = boundOf(condition, '$gt', '$gte');
  let upper = boundOf(condition, '$lt', '$lte');
  if (!lower && !upper) return undefined;
  // On a multikey index each bound may be met by a different element, so intersecting is unsafe.
  if (index.multikey && lower && upper) upper = undefined;
  const rankOfBound = typeRank((lower ?? upper)!.value);
  if (lower && upper && typeRank(upper.value) !== rankOfBound) return undefined;
  const withinType = (value: unknown) => typeRank(value) === rankOfBound;
  return {
    rank: 4,
    // A document holds one entry in an index that is not multikey: the range has no duplicate to drop.
    keys: () => (index.multikey ? new Set(index.lookupRange(lower, upper, withinType)) : index.lookupRange(lower, upper, withinType)),
  };
}

function boundOf(condition: Document, exclusive: string, inclusive: string): RangeBound | undefined {
  if (exclusive in condition && isLookupValue(condition[exclusive])) return { value: condition[exclusive], inclusive: false };
  if (inclusive in condition && isLookupValue(condition[inclusive])) return { value: condition[inclusive], inclusive: true };
  return undefined;
}

function bestPlan(collection: Collection, filter: Document): Plan | undefined {
  let best: Plan | undefined;
  for (const [field, condition] of Object.entries(filter)) {
    if (field === '$and' && Array.isArray(condition)) {
      for (const clause of condition) {
        const plan = isPlainObject(clause) ? bestPlan(collection, clause) : undefined;
        if (plan && (!best || plan.rank < best.rank)) best = plan;
      }
      continue;
    }
    if (field.startsWith('$')) continue;
    for (const index of collection.indexes.values()) {
      if (index.fields[0] !== field || !index.usableForLookups) continue;
      const plan = planForCondition(index, condition);
      if (plan && (!best || plan.rank < best.rank)) best = plan;
    }
  }
  return best;
}

/** Candidate documents for the filter: from an index when one applies, else every document. */
export function candidateDocuments(collection: Collection, filter: Document | undefined): Iterable<Document> {
  const plan = filter && Object.keys(filter).length > 0 ? bestPlan(collection, filter) : undefined;
  if (!plan) return collection.documents.values();
  return resolveKeys(collection, plan.keys());
}

/**
 * The documents of the keys, read as the keys come (an index range is walked once, not copied into
 * an array first). The caller consumes the whole result before anything can change the collection:
 * command handlers run synchronously.
 */
function* resolveKeys(collection: Collection, keys: Iterable<string>): Generator<Document> {
  for (const key of keys) {
    const document = collection.documents.get(key);
    if (document) yield document;
  }
}
