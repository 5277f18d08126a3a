import type { Document } from 'bson';
import { Query } from 'mingo';
import { isPlainObject } from './bson-values';
import { CommandError } from './errors';

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
  if (needsMingo) {
    const usesPositional = entries.some(([path]) => path.endsWith('.$'));
    const query = new Query(usesPositional && filter ? filter : {}, {});
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
