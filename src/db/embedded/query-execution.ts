import type { Document } from 'bson';
import { Query } from 'mingo';
import { compareValues, isPlainObject } from './bson-values';
import type { Collection } from './collection';
import { collectPathValues } from './document-paths';
import { CommandError, ErrorCode } from './errors';
import { candidateDocuments } from './query-planner';
import { compileSimpleFilter } from './simple-filter';

export type DocumentMatcher = (document: Document) => boolean;

/** Compiles a query filter once (the simple-filter fast path, else mingo) so it can test many candidates. */
export function compileFilter(filter: unknown): DocumentMatcher {
  if (filter === undefined || filter === null) return () => true;
  if (!isPlainObject(filter)) throw new CommandError(ErrorCode.TypeMismatch, "BSON field 'filter' is the wrong type, expected type 'object'");
  if (Object.keys(filter).length === 0) return () => true;
  const simple = compileSimpleFilter(filter);
  if (simple) return simple;
  const query = new Query(filter, {});
  return (document) => query.test(document);
}

export interface MatchOptions {
  sort?: Document;
  skip?: number;
  limit?: number;
}

/**
 * The stored documents that match, sorted and windowed. Returns the stored objects themselves:
 * callers must not mutate them (they are serialised or copied before any change).
 */
export function findMatchingDocuments(collection: Collection | undefined, filter: Document | undefined, options: MatchOptions = {}): Document[] {
  if (!collection) return [];
  const matches = compileFilter(filter);
  const skip = Math.max(0, options.skip ?? 0);
  const limit = options.limit && options.limit > 0 ? options.limit : undefined;
  const sortSpec = options.sort && Object.keys(options.sort).length > 0 ? options.sort : undefined;
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

type SortKey = { values: unknown[]; document: Document };

/** Sorts by a MongoDB sort specification; with `keep`, only the first `keep` are guaranteed sorted and kept. */
export function sortDocuments(documents: Document[], sortSpec: Document, keep?: number): Document[] {
  const fields = Object.entries(sortSpec).map(([path, direction]) => {
    if (isPlainObject(direction)) return { path, direction: 1 };
    const numeric = Number(direction);
    if (numeric !== 1 && numeric !== -1) throw new CommandError(ErrorCode.BadValue, `$sort key ordering must be 1 (for ascending) or -1 (for descending)`);
    return { path, direction: numeric };
  });
  const keyed: SortKey[] = documents.map((document) => ({
    document,
    values: fields.map(({ path, direction }) => sortValueOf(document, path, direction)),
  }));
  const compare = (a: SortKey, b: SortKey): number => {
    for (let i = 0; i < fields.length; i += 1) {
      const byField = compareValues(a.values[i], b.values[i]) * fields[i].direction;
      if (byField !== 0) return byField;
    }
    return 0;
  };
  if (keep !== undefined && keep < 1000 && keyed.length > keep * 4) return topK(keyed, keep, compare).map((entry) => entry.document);
  return keyed.sort(compare).map((entry) => entry.document);
}

/** The value a document sorts by: arrays sort by their smallest element ascending, largest descending. */
function sortValueOf(document: Document, path: string, direction: number): unknown {
  const values = collectPathValues(document, path);
  if (values.length === 0) return null;
  let chosen = values[0];
  for (const value of values) {
    const byValue = compareValues(value, chosen);
    if ((direction === 1 && byValue < 0) || (direction === -1 && byValue > 0)) chosen = value;
  }
  return chosen;
}

/** The `keep` smallest entries in order, without sorting everything (stable for ties). */
function topK<T>(entries: T[], keep: number, compare: (a: T, b: T) => number): T[] {
  const best: T[] = [];
  for (const entry of entries) {
    if (best.length === keep && compare(entry, best[best.length - 1]) >= 0) continue;
    let low = 0;
    let high = best.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (compare(best[middle], entry) <= 0) low = middle + 1;
      else high = middle;
    }
    best.splice(low, 0, entry);
    if (best.length > keep) best.pop();
  }
  return best;
}
