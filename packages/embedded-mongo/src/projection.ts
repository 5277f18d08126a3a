import type { Document } from 'bson';
import { isPlainObject } from './bson-values';
import { CommandError } from './errors';
import type { Query } from 'mingo/query';
import { engineQuery } from './mingo-context';

export type Projector = (document: Document) => Document;

type ProjectionTree = { [field: string]: true | ProjectionTree };

/**
 * Compiles a find projection. Plain inclusion/exclusion is done here, keeping MongoDB's field
 * order; operator projections (`$slice`, `$elemMatch`, positional `.$`, expressions) go to mingo,
 * which needs the query filter for the positional form.
 */
export function compileProjection(projection: Document | undefined, filter: Document | undefined): Projector | undefined {
  if (!projection || Object.keys(projection).length === 0) return undefined;
  const entries = Object.entries(projection);
  const needsMingo = entries.some(([path, value]) => path.includes('$') || (value !== null && typeof value === 'object') || typeof value === 'string');
  if (needsMingo && entries.every(([path, value]) => !path.includes('$') && (!isPlainObject(value) || isArrayOperator(path, value)) && typeof value !== 'string')) {
    return compileArrayOperatorProjection(entries);
  }
  if (needsMingo) {
    const usesPositional = entries.some(([path]) => path.endsWith('.$'));
    const query = engineQuery(usesPositional && filter ? filter : {});
    return (document) => query.find<Document>([document], projection).all()[0] ?? document;
  }
  let includeId = true;
  const included: string[] = [];
  const excluded: string[] = [];
  for (const [path, value] of entries) {
    const include = value === true || (typeof value === 'number' && value !== 0);
    if (path === '_id') {
      includeId = include;
      continue;
    }
    (include ? included : excluded).push(path);
  }
  if (included.length > 0 && excluded.length > 0) {
    throw new CommandError(31254, `Cannot do exclusion on field ${excluded[0]} in inclusion projection`);
  }
  if (included.length > 0 || (excluded.length === 0 && includeId)) {
    const tree = buildTree(included);
    if (includeId) tree._id = true;
    return (document) => include(document, tree);
  }
  const tree = buildTree(excluded);
  if (!includeId) tree._id = true;
  return (document) => exclude(document, tree);
}

function buildTree(paths: string[]): ProjectionTree {
  const tree: ProjectionTree = {};
  for (const path of paths) {
    const segments = path.split('.');
    let node = tree;
    for (let i = 0; i < segments.length - 1; i += 1) {
      const next = node[segments[i]];
      if (next === true) break;
      node = next ?? (node[segments[i]] = {});
    }
    node[segments[segments.length - 1]] = true;
  }
  return tree;
}

function include(document: Document, tree: ProjectionTree): Document {
  const out: Document = {};
  for (const key of Object.keys(document)) {
    const rule = tree[key];
    if (rule === undefined) continue;
    const value = document[key];
    if (rule === true) out[key] = value;
    else if (isPlainObject(value)) out[key] = include(value, rule);
    else if (Array.isArray(value)) out[key] = includeInArray(value, rule);
  }
  return out;
}

function includeInArray(values: unknown[], tree: ProjectionTree): unknown[] {
  const out: unknown[] = [];
  for (const value of values) {
    if (isPlainObject(value)) out.push(include(value, tree));
    else if (Array.isArray(value)) out.push(includeInArray(value, tree));
  }
  return out;
}

function exclude(document: Document, tree: ProjectionTree): Document {
  const out: Document = {};
  for (const key of Object.keys(document)) {
    const rule = tree[key];
    const value = document[key];
    if (rule === true) continue;
    if (rule === undefined) out[key] = value;
    else if (isPlainObject(value)) out[key] = exclude(value, rule);
    else if (Array.isArray(value)) out[key] = value.map((element) => (isPlainObject(element) ? exclude(element, rule) : element));
    else out[key] = value;
  }
  return out;
}

function isArrayOperator(path: string, value: Document): boolean {
  const keys = Object.keys(value);
  return keys.length === 1 && (keys[0] === '$slice' || (keys[0] === '$elemMatch' && !path.includes('.')));
}

/**
 * Projections with `$slice` and `$elemMatch` (and plain fields), as MongoDB applies them:
 * `$slice` alone keeps every other field (an exclusion projection) and joins an inclusion one;
 * `$elemMatch` makes an inclusion projection and its field comes after the other included fields.
 */
function compileArrayOperatorProjection(entries: Array<[string, unknown]>): Projector {
  const slices: Array<{ segments: string[]; window: (values: unknown[]) => unknown[] }> = [];
  const elemMatches: Array<{ field: string; query: Query }> = [];
  const plain: Document = {};
  for (const [path, value] of entries) {
    if (!isPlainObject(value)) plain[path] = value;
    else if ('$slice' in value) slices.push({ segments: path.split('.'), window: sliceWindow(value.$slice) });
    else elemMatches.push({ field: path, query: engineQuery({ [path]: { $elemMatch: value.$elemMatch } }) });
  }
  const isIncluded = (value: unknown) => value === true || (typeof value === 'number' && value !== 0);
  const includesFields = Object.entries(plain).some(([path, value]) => path !== '_id' && isIncluded(value));
  const excludesFields = Object.entries(plain).some(([path, value]) => path !== '_id' && !isIncluded(value));
  const inclusion = includesFields || (elemMatches.length > 0 && !excludesFields);
  const includeId = plain._id === undefined || isIncluded(plain._id);
  let base: Projector | undefined;
  if (inclusion) {
    for (const { segments } of slices) plain[segments.join('.')] = 1;
    const hasFields = Object.keys(plain).some((path) => path !== '_id');
    base = hasFields ? compileProjection(plain, undefined) : (document) => (includeId && '_id' in document ? { _id: document._id } : {});
  } else {
    base = compileProjection(plain, undefined);
  }
  return (document) => {
    let out = base ? base(document) : document;
    for (const { segments, window } of slices) out = withSlicedArray(out, segments, 0, window);
    if (elemMatches.length > 0) {
      if (out === document) out = { ...document };
      for (const { field, query } of elemMatches) {
        const values = document[field];
        if (!Array.isArray(values)) continue;
        const match = values.find((element) => query.test({ [field]: [element] }));
        if (match !== undefined) out[field] = [match];
      }
    }
    return out;
  };
}

function sliceWindow(spec: unknown): (values: unknown[]) => unknown[] {
  if (typeof spec === 'number') return (values) => (spec >= 0 ? values.slice(0, spec) : values.slice(Math.max(0, values.length + spec)));
  if (Array.isArray(spec) && spec.length === 2 && typeof spec[0] === 'number' && typeof spec[1] === 'number') {
    const [skip, limit] = spec as [number, number];
    if (limit <= 0) throw new CommandError(28724, 'Second argument to $slice must be a positive number');
    return (values) => {
      const start = skip >= 0 ? Math.min(skip, values.length) : Math.max(0, values.length + skip);
      return values.slice(start, start + limit);
    };
  }
  throw new CommandError(28667, 'Argument to $slice must be a number or an array of two numbers');
}

/** A copy of the document along the path (never the stored objects) with the array at its end windowed. */
function withSlicedArray(document: Document, segments: string[], depth: number, window: (values: unknown[]) => unknown[]): Document {
  const key = segments[depth];
  const value = document[key];
  if (value === undefined) return document;
  const copy: Document = { ...document };
  if (depth === segments.length - 1) {
    if (Array.isArray(value)) copy[key] = window(value);
  } else if (isPlainObject(value)) {
    copy[key] = withSlicedArray(value, segments, depth + 1, window);
  } else if (Array.isArray(value)) {
    copy[key] = value.map((element) => (isPlainObject(element) ? withSlicedArray(element, segments, depth + 1, window) : element));
  }
  return copy;
}
