import type { Document } from 'bson';
import { formatDocument, valueKey } from './bson-values';
import { collectPathValues, pathCrossesArray } from './document-paths';
import { CommandError, ErrorCode } from './errors';
import type { Query } from 'mingo/query';
import { engineQuery } from './mingo-context';
import { SortedKeyList, type RangeBound } from './sorted-key-list';

/** An index as `createIndexes` describes it and `listIndexes` returns it. */
export interface IndexSpec {
  name: string;
  key: Document;
  unique?: boolean;
  sparse?: boolean;
  partialFilterExpression?: Document;
  expireAfterSeconds?: number;
  [option: string]: unknown;
}

/** Options that make two indexes on the same key different indexes (MongoDB compares these). */
const SIGNIFICANT_OPTIONS = ['unique', 'sparse', 'partialFilterExpression', 'expireAfterSeconds', 'collation'] as const;

export function defaultIndexName(key: Document): string {
  return Object.entries(key)
    .map(([field, direction]) => `${field}_${String(direction)}`)
    .join('_');
}

export function sameIndexOptions(a: IndexSpec, b: IndexSpec): boolean {
  return SIGNIFICANT_OPTIONS.every((option) => valueKey(a[option] ?? null) === valueKey(b[option] ?? null));
}

/** What one document contributes to one index. */
export interface IndexKeys {
  /** Values of the leading field (several when that field holds an array), with their hash keys. */
  leading: unknown[];
  leadingKeys: string[];
  /** For compound unique indexes: full keys, one per combination of array elements. */
  compound?: Array<{ key: string; values: unknown[] }>;
}

/**
 * One index of a collection. It keeps, for its leading field, a hash of value → documents (for
 * equality, `$in` and single-field uniqueness) and an ordered list (for ranges), plus a full-key
 * map for compound unique indexes. Documents are never mutated in place (updates replace them),
 * so an entry is removed by recomputing the keys of the document version that was indexed.
 */
export class CollectionIndex {
  readonly spec: IndexSpec;
  readonly fields: string[];
  readonly unique: boolean;
  /** True once any indexed document held an array in an indexed field. */
  multikey = false;
  /** Hash key → the one document holding it, or a set when several do (saves a Set per unique key). */
  private readonly equality = new Map<string, string | Set<string>>();
  private readonly ordered = new SortedKeyList();
  private readonly compoundOwners = new Map<string, string>();
  private readonly partialFilter: Query | undefined;

  constructor(spec: IndexSpec) {
    this.spec = spec;
    this.fields = Object.keys(spec.key);
    // MongoDB lists `_id_` without `unique: true` yet always enforces it.
    this.unique = spec.unique === true || spec.name === '_id_';
    this.partialFilter = spec.partialFilterExpression ? engineQuery(spec.partialFilterExpression) : undefined;
  }

  get name(): string {
    return this.spec.name;
  }

  /** Whether lookups may use this index (a partial index misses documents outside its filter). */
  get usableForLookups(): boolean {
    return !this.partialFilter;
  }

  /** The keys a document has in this index, or undefined when the index skips it (sparse, partial). */
  keysOf(document: Document): IndexKeys | undefined {
    if (this.partialFilter && !this.partialFilter.test(document)) return undefined;
    const perField = this.fields.map((field) => collectPathValues(document, field));
    if (this.spec.sparse === true && perField.every((values) => values.length === 0)) return undefined;
    if (!this.multikey && this.fields.some((field) => crossesArray(document, field))) this.multikey = true;
    const normalized = perField.map((values) => (values.length === 0 ? [null] : values.length === 1 ? values : dedupe(values)));
    const leading = normalized[0];
    const keys: IndexKeys = { leading, leadingKeys: leading.map(valueKey) };
    if (this.unique && this.fields.length > 1) {
      let combinations: unknown[][] = [[]];
      for (const values of normalized) combinations = combinations.flatMap((prefix) => values.map((value) => [...prefix, value]));
      keys.compound = combinations.map((values) => ({ key: JSON.stringify(values.map(valueKey)), values }));
    }
    return keys;
  }

  /** The duplicate-key error these keys would cause, ignoring `ownKey` (the document being replaced). */
  conflictFor(keys: IndexKeys | undefined, ownKey: string | undefined, namespace: string): CommandError | undefined {
    if (!this.unique || !keys) return undefined;
    if (keys.compound) {
      for (const { key, values } of keys.compound) {
        const owner = this.compoundOwners.get(key);
        if (owner !== undefined && owner !== ownKey) return this.duplicateKeyError(values, namespace);
      }
      return undefined;
    }
    for (let i = 0; i < keys.leadingKeys.length; i += 1) {
      const owners = this.equality.get(keys.leadingKeys[i]);
      if (owners === undefined) continue;
      const taken = typeof owners === 'string' ? owners !== ownKey : [...owners].some((owner) => owner !== ownKey);
      if (taken) return this.duplicateKeyError([keys.leading[i]], namespace);
    }
    return undefined;
  }

  add(document: Document, documentKey: string): void {
    this.addKeys(this.keysOf(document), documentKey);
  }

  remove(document: Document, documentKey: string): void {
    this.removeKeys(this.keysOf(document), documentKey);
  }

  addKeys(keys: IndexKeys | undefined, documentKey: string): void {
    if (!keys) return;
    for (let i = 0; i < keys.leadingKeys.length; i += 1) {
      const key = keys.leadingKeys[i];
      const owners = this.equality.get(key);
      if (owners === undefined) this.equality.set(key, documentKey);
      else if (typeof owners === 'string') {
        if (owners !== documentKey) this.equality.set(key, new Set([owners, documentKey]));
      } else owners.add(documentKey);
      this.ordered.insert({ value: keys.leading[i], documentKey });
    }
    for (const { key } of keys.compound ?? []) this.compoundOwners.set(key, documentKey);
  }

  removeKeys(keys: IndexKeys | undefined, documentKey: string): void {
    if (!keys) return;
    for (let i = 0; i < keys.leadingKeys.length; i += 1) {
      const key = keys.leadingKeys[i];
      const owners = this.equality.get(key);
      if (owners === documentKey) this.equality.delete(key);
      else if (owners instanceof Set) {
        owners.delete(documentKey);
        if (owners.size === 1) this.equality.set(key, owners.values().next().value as string);
      }
      this.ordered.remove({ value: keys.leading[i], documentKey });
    }
    for (const { key } of keys.compound ?? []) if (this.compoundOwners.get(key) === documentKey) this.compoundOwners.delete(key);
  }

  /** Keys of documents whose leading field equals `value`, in insertion order. */
  lookupEqual(value: unknown): Iterable<string> {
    const owners = this.equality.get(valueKey(value));
    if (owners === undefined) return [];
    return typeof owners === 'string' ? [owners] : owners;
  }

  lookupRange(lower: RangeBound | undefined, upper: RangeBound | undefined, withinType: (value: unknown) => boolean): Iterable<string> {
    return this.ordered.range(lower, upper, withinType);
  }

  private duplicateKeyError(values: unknown[], namespace: string): CommandError {
    const keyValue: Document = {};
    this.fields.forEach((field, i) => (keyValue[field] = values[i]));
    return new CommandError(
      ErrorCode.DuplicateKey,
      `E11000 duplicate key error collection: ${namespace} index: ${this.name} dup key: ${formatDocument(keyValue)}`,
      { details: { keyPattern: { ...this.spec.key }, keyValue } },
    );
  }
}

/** Same keys in the same order: an update that leaves them alone need not touch the index. */
export function sameIndexKeys(a: IndexKeys | undefined, b: IndexKeys | undefined): boolean {
  if (!a || !b) return a === b;
  if (a.leadingKeys.length !== b.leadingKeys.length || a.leadingKeys.some((key, i) => key !== b.leadingKeys[i])) return false;
  const compoundA = a.compound ?? [];
  const compoundB = b.compound ?? [];
  return compoundA.length === compoundB.length && compoundA.every((entry, i) => entry.key === compoundB[i].key);
}

function crossesArray(document: Document, field: string): boolean {
  return field.includes('.') ? pathCrossesArray(document, field) : Array.isArray(document[field]);
}

function dedupe(values: unknown[]): unknown[] {
  if (values.length < 2) return values;
  const seen = new Map<string, unknown>();
  for (const value of values) if (!seen.has(valueKey(value))) seen.set(valueKey(value), value);
  return [...seen.values()];
}

/** Validates a `createIndexes` entry and fills in MongoDB's defaults. */
export function normalizeIndexSpec(raw: Document): IndexSpec {
  if (!raw || typeof raw !== 'object' || !raw.key || typeof raw.key !== 'object' || Object.keys(raw.key).length === 0) {
    throw new CommandError(ErrorCode.FailedToParse, "The 'key' field is a required property of an index specification");
  }
  const name = typeof raw.name === 'string' ? raw.name : defaultIndexName(raw.key);
  if (name.length === 0) throw new CommandError(ErrorCode.BadValue, 'index name cannot be empty');
  const spec: IndexSpec = { ...raw, v: 2, key: { ...raw.key }, name } as IndexSpec;
  if (raw.unique !== true) delete spec.unique;
  if (raw.sparse !== true) delete spec.sparse;
  return spec;
}
