import type { Document } from 'bson';
import { compareValues, isPlainObject } from './bson-values';
import { collectPathValues, segmentsOf } from './document-paths';
import { CommandError, ErrorCode } from './errors';

type SortKey = { values: unknown[]; document: Document };

/** Sorts by a MongoDB sort specification; with `keep`, only the first `keep` are guaranteed sorted and kept. */
export function sortDocuments(documents: Document[], sortSpec: Document, keep?: number): Document[] {
  const fields = Object.entries(sortSpec).map(([path, direction]) => {
    if (isPlainObject(direction)) return { path, direction: 1 };
    const numeric = Number(direction);
    if (numeric !== 1 && numeric !== -1) throw new CommandError(ErrorCode.BadValue, `$sort key ordering must be 1 (for ascending) or -1 (for descending)`);
    return { path, direction: numeric };
  });
  // Results read from an index in the sort's order (the usual case) are returned as they are.
  if (isSorted(documents, fields)) return keep === undefined ? documents : documents.slice(0, keep);
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

/**
 * Whether the documents are already in order, checked in one pass that allocates nothing for
 * fields that hold no array. Equal neighbours count as in order: the sort is stable.
 */
function isSorted(documents: Document[], fields: Array<{ path: string; direction: number }>): boolean {
  for (let i = 1; i < documents.length; i += 1) {
    for (const { path, direction } of fields) {
      const byField = compareValues(sortValueOf(documents[i - 1], path, direction), sortValueOf(documents[i], path, direction)) * direction;
      if (byField < 0) break;
      if (byField > 0) return false;
    }
  }
  return true;
}

/** The value a document sorts by: arrays sort by their smallest element ascending, largest descending. */
function sortValueOf(document: Document, path: string, direction: number): unknown {
  const direct = scalarAt(document, segmentsOf(path));
  if (direct !== ARRAY_MET) return direct === undefined ? null : direct;
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

const ARRAY_MET = Symbol('array met');

/** The value at the path when the walk meets no array (undefined when absent), else ARRAY_MET. */
function scalarAt(document: Document, segments: string[]): unknown {
  let current: unknown = document;
  for (const segment of segments) {
    if (Array.isArray(current)) return ARRAY_MET;
    if (!isPlainObject(current)) return undefined;
    current = current[segment];
  }
  return Array.isArray(current) ? ARRAY_MET : current;
}
