import type { Document } from 'bson';
import { isPlainObject, typeRank, valueKey } from './bson-values';
import type { Collection } from './collection';
import { collectPathValues } from './document-paths';
import type { CollectionIndex } from './indexes';
import { compileProjection, type Projector } from './projection';
import { compileFilter, prepareFilter } from './query-execution';

/**
 * `$lookup` by equality (`localField`/`foreignField`, with or without a `pipeline`), run by the
 * engine as MongoDB runs it: for each input document, the foreign documents whose `foreignField`
 * equals the local value, found through an index whose leading field is `foreignField` when the
 * foreign collection has one (MongoDB's indexed nested-loop join), else through a hash of the
 * foreign collection built once per command; then the `pipeline` on those documents only. mingo's
 * own `$lookup` hashes the whole foreign collection for every command and, with a `pipeline`, runs
 * it over every foreign document. Returns undefined for the forms it leaves to mingo: `let`,
 * `from` in another database, a dotted `as`, local values that are documents or arrays of them,
 * and pipelines with stages other than `$match` and plain `$project`.
 */
export function lookupByEquality(
  input: readonly Document[],
  spec: unknown,
  resolveCollection: (name: string) => Collection | undefined,
  /** Whether the input documents are the pipeline's own (made by an earlier stage), not stored ones. */
  owned = false,
): Document[] | undefined {
  if (!isPlainObject(spec) || spec.let !== undefined) return undefined;
  const { from, localField, foreignField, as, pipeline } = spec;
  if (typeof from !== 'string' || typeof localField !== 'string' || typeof foreignField !== 'string' || typeof as !== 'string') return undefined;
  if (as.includes('.') || as.startsWith('$') || Object.keys(spec).some((key) => !LOOKUP_FIELDS.has(key))) return undefined;
  const steps = pipeline === undefined ? [] : compileSubPipeline(pipeline, resolveCollection(from));
  if (!steps) return undefined;

  const localSegments = localField.split('.');
  const localValues = new Array<unknown[]>(input.length);
  for (let i = 0; i < input.length; i += 1) {
    const values = valuesAt(input[i], localField, localSegments);
    if (!values.every(isEqualityValue)) return undefined;
    localValues[i] = values;
  }

  const foreign = resolveCollection(from);
  const candidates = foreign ? foreignLookup(foreign, foreignField) : () => [];
  const output = new Array<Document>(input.length);
  for (let i = 0; i < input.length; i += 1) {
    let matched = candidates(localValues[i]);
    for (const step of steps) matched = step(matched);
    // Documents the pipeline made itself (`owned`) take the field in place; stored ones are copied
    // first (Object.assign, then the new field: a spread literal with one more key costs 20 times as much in V8).
    const joined: Document = owned ? input[i] : Object.assign({}, input[i]);
    joined[as] = matched;
    output[i] = joined;
  }
  return output;
}

/**
 * The values `$lookup` matches for a path, as MongoDB defines them: a missing field is null; an
 * array (at the end of the path or on the way) stands for its elements, like `$in` of them, so an
 * empty one matches nothing. A path that meets no array skips the general walk.
 */
function valuesAt(document: Document, path: string, segments: string[]): unknown[] {
  let current: unknown = document;
  for (const segment of segments) {
    if (Array.isArray(current)) return collectPathValues(document, path);
    if (!isPlainObject(current)) return [null];
    current = current[segment];
  }
  if (current === undefined) return [null];
  return Array.isArray(current) ? [...current] : [current];
}

const LOOKUP_FIELDS = new Set(['from', 'localField', 'foreignField', 'as', 'pipeline']);

/** Scalars an equality index answers exactly (null included: it matches a missing field too). */
function isEqualityValue(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (Array.isArray(value) || isPlainObject(value) || value instanceof RegExp) return false;
  // MinKey and MaxKey compare specially; leave them to mingo.
  const rank = typeRank(value);
  return rank !== 1 && rank !== 13;
}

type Step = (documents: Document[]) => Document[];

/** The sub-pipeline as steps over the matched documents, or undefined when a stage is not `$match` or a plain `$project`. */
function compileSubPipeline(pipeline: unknown, foreign: Collection | undefined): Step[] | undefined {
  if (!Array.isArray(pipeline)) return undefined;
  const steps: Step[] = [];
  for (const stage of pipeline) {
    if (!isPlainObject(stage) || Object.keys(stage).length !== 1) return undefined;
    if (isPlainObject(stage.$match)) {
      const matches = compileFilter(prepareFilter(stage.$match, foreign), foreign);
      steps.push((documents) => documents.filter(matches));
    } else if (isPlainObject(stage.$project) && isPlainProjection(stage.$project)) {
      const project = compileProjection(stage.$project, undefined) as Projector;
      steps.push((documents) => documents.map(project));
    } else {
      return undefined;
    }
  }
  return steps;
}

/**
 * A valid projection of fields only: inclusions, or exclusions, and `_id` either way, without
 * expressions or operators. There a find projection and `$project` agree; anything else (errors
 * included) is left to mingo.
 */
export function isPlainProjection(projection: Document): boolean {
  const entries = Object.entries(projection);
  if (entries.length === 0) return false;
  const kinds = new Set<boolean>();
  for (const [path, value] of entries) {
    if (path.length === 0 || path.includes('$') || !(typeof value === 'boolean' || value === 0 || value === 1)) return false;
    if (path !== '_id') kinds.add(value === true || value === 1);
  }
  return kinds.size <= 1;
}

/**
 * The foreign documents equal to any of the local values, each once, in the index's (or the
 * collection's) order for each value.
 */
function foreignLookup(foreign: Collection, foreignField: string): (values: unknown[]) => Document[] {
  const index = equalityIndex(foreign, foreignField);
  if (index) {
    const segments = foreignField.split('.');
    // Candidates are checked: inside a transaction an index answers a superset (transactions.ts).
    return (values) => {
      if (values.length === 1) return documentsOf(foreign, index.lookupEqual(values[0]), foreignField, segments, values);
      const keys = new Set<string>();
      for (const value of values) for (const key of index.lookupEqual(value)) keys.add(key);
      return documentsOf(foreign, keys, foreignField, segments, values);
    };
  }
  const byValue = new Map<string, Document[]>();
  const segments = foreignField.split('.');
  for (const document of foreign.documents.values()) {
    const keys = new Set(valuesAt(document, foreignField, segments).map(valueKey));
    for (const key of keys) {
      const list = byValue.get(key);
      if (list) list.push(document);
      else byValue.set(key, [document]);
    }
  }
  return (values) => {
    if (values.length === 1) return [...(byValue.get(valueKey(values[0])) ?? [])];
    const found = new Set<Document>();
    for (const value of values) for (const document of byValue.get(valueKey(value)) ?? []) found.add(document);
    return [...found];
  };
}

/** An index that finds every document equal to a value of `field`, null and missing included. */
function equalityIndex(collection: Collection, field: string): CollectionIndex | undefined {
  for (const index of collection.indexes.values()) {
    if (index.fields[0] === field && index.usableForLookups && index.spec.sparse !== true) return index;
  }
  return undefined;
}

/** The documents of the keys whose `field` equals one of `values`. */
function documentsOf(collection: Collection, keys: Iterable<string>, field: string, segments: string[], values: unknown[]): Document[] {
  const documents: Document[] = [];
  for (const key of keys) {
    const document = collection.documents.get(key);
    if (document && holdsOneOf(document, field, segments, values)) documents.push(document);
  }
  return documents;
}

function holdsOneOf(document: Document, field: string, segments: string[], wanted: unknown[]): boolean {
  const held = valuesAt(document, field, segments);
  for (const value of held) for (const other of wanted) if (sameValue(value, other)) return true;
  return false;
}

/** MongoDB's equality of two scalars (numbers of any width by value, null equal to a missing field). */
function sameValue(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') return a === b || (Number.isNaN(a) && Number.isNaN(b));
  if (typeof a === 'string' && typeof b === 'string') return a === b;
  return valueKey(a) === valueKey(b);
}
