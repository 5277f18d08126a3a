import type { Document } from 'bson';
import { isPlainObject, setOwn } from './bson-values';

/**
 * Every value a dotted path reaches, expanding arrays on the way and at the end, as a multikey
 * index sees them: `a.b` over `{a: [{b: 1}, {b: [2, 3]}]}` gives 1, 2, 3. An array at the end of
 * the path contributes its elements (an empty array contributes nothing).
 */
export function collectPathValues(document: unknown, path: string): unknown[] {
  const segments = segmentsOf(path);
  // Most paths cross no array: walk them without the general recursion.
  let current: unknown = document;
  for (let depth = 0; depth < segments.length; depth += 1) {
    if (Array.isArray(current)) {
      const out: unknown[] = [];
      collectInto(document, segments, 0, out);
      return out;
    }
    if (!isPlainObject(current)) return [];
    current = current[segments[depth]];
  }
  if (current === undefined) return [];
  return Array.isArray(current) ? [...current] : [current];
}

const segmentCache = new Map<string, string[]>();

/** A path's segments, split once per path rather than once per document (the cache is emptied when it grows large). */
export function segmentsOf(path: string): string[] {
  let segments = segmentCache.get(path);
  if (segments === undefined) {
    if (segmentCache.size >= 10_000) segmentCache.clear();
    segmentCache.set(path, (segments = path.split('.')));
  }
  return segments;
}

/**
 * Like `collectPathValues`, but an array at the end of the path also counts as a value itself (for
 * `$type: 'array'`): `a` over `{a: [1, [2]]}` gives `[1, [2]]`, 1 and `[2]`.
 */
export function collectPathValuesWithArrays(document: unknown, path: string): unknown[] {
  const out: unknown[] = [];
  collectInto(document, path.split('.'), 0, out, true);
  return out;
}

function collectInto(value: unknown, segments: string[], depth: number, out: unknown[], keepArrays = false): void {
  if (depth === segments.length) {
    if (Array.isArray(value)) {
      if (keepArrays) out.push(value);
      out.push(...value);
    } else if (value !== undefined) out.push(value);
    return;
  }
  if (Array.isArray(value)) {
    const segment = segments[depth];
    if (/^\d+$/.test(segment) && Number(segment) < value.length) {
      collectInto(value[Number(segment)], segments, depth + 1, out, keepArrays);
    }
    for (const element of value) {
      if (isPlainObject(element)) collectInto(element, segments, depth, out, keepArrays);
    }
    return;
  }
  if (isPlainObject(value)) collectInto(value[segments[depth]], segments, depth + 1, out, keepArrays);
}

/** The value at a dotted path without array expansion (`undefined` when absent). */
export function getPath(document: unknown, path: string): unknown {
  let current: unknown = document;
  for (const segment of path.split('.')) {
    if (Array.isArray(current) && /^\d+$/.test(segment)) current = current[Number(segment)];
    else if (isPlainObject(current)) current = current[segment];
    else return undefined;
  }
  return current;
}

/** Sets a dotted path, creating intermediate documents; used to seed upserted documents. */
export function setPath(document: Document, path: string, value: unknown): void {
  const segments = path.split('.');
  let current: Document = document;
  for (let i = 0; i < segments.length - 1; i += 1) {
    const next = current[segments[i]];
    if (!isPlainObject(next) && !Array.isArray(next)) current[segments[i]] = {};
    current = current[segments[i]] as Document;
  }
  current[segments[segments.length - 1]] = value;
}

/** True when one dotted path equals the other or lies inside it (`a` and `a.b`). */
export function pathsOverlap(a: string, b: string): boolean {
  return a === b || a.startsWith(`${b}.`) || b.startsWith(`${a}.`);
}

/** A copy of the document with `_id` as its first field, as MongoDB stores it. */
export function withIdFirst(document: Document): Document {
  const keys = Object.keys(document);
  if (keys[0] === '_id' || !('_id' in document)) return document;
  const reordered: Document = { _id: document._id };
  for (const key of keys) if (key !== '_id') setOwn(reordered, key, document[key]);
  return reordered;
}

/** Whether an array lies anywhere along the path (which makes an index on it multikey). */
export function pathCrossesArray(document: unknown, path: string): boolean {
  let current: unknown = document;
  for (const segment of path.split('.')) {
    if (Array.isArray(current)) return true;
    if (!isPlainObject(current)) return false;
    current = current[segment];
  }
  return Array.isArray(current);
}
