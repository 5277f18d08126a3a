import type { Document } from 'bson';
import { Query } from 'mingo';
import { formatDocument, valueKey } from './bson-values';
import { collectPathValues, pathCrossesArray } from './document-paths';
import { CommandError, ErrorCode } from './errors';
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

interface IndexKeys {
  /** Values of the leading field (several when that field holds an array). */
  leading: unknown[];
  /** Full compound keys, as values per field, one per combination of array elements. */
  compound: unknown[][];
}

/**
 * One index of a collection. It keeps, for its leading field, a hash of value → documents (for
 * equality and `$in`) and an ordered list (for ranges), plus a full-key map when unique. Documents
 * are never mutated in place (updates replace them), so an entry is removed by recomputing the
 * keys of the document version that was indexed.
 */
export class CollectionIndex {
  readonly spec: IndexSpec;
  readonly fields: string[];
  /** True once any indexed document held an array in an indexed field. */
  multikey = false;
  private readonly equality = new Map<string, Set<string>>();
  private readonly ordered = new SortedKeyList();
  private readonly uniqueOwners = new Map<string, string>();
  private readonly partialFilter: Query | undefined;

  constructor(spec: IndexSpec) {
    this.spec = spec;
    this.fields = Object.keys(spec.key);
    this.partialFilter = spec.partialFilterExpression ? new Query(spec.partialFilterExpression, {}) : undefined;
  }

  get name(): string {
    return this.spec.name;
  }

  get unique(): boolean {
    // MongoDB lists `_id_` without `unique: true` yet always enforces it.
    return this.spec.unique === true || this.spec.name === '_id_';
  }

  /** Whether every document is indexed, so a scan of this index can stand for a collection scan. */
  get coversAllDocuments(): boolean {
    return !this.partialFilter && this.spec.sparse !== true;
  }

  /** Whether lookups on non-null values may use this index (sparse skips only missing fields). */
  get usableForLookups(): boolean {
    return !this.partialFilter;
  }

  /** The duplicate-key error this document would cause, if any (ignoring the entries of `ownKey`, the document being replaced). */
  findConflict(document: Document, ownKey: string | undefined, namespace: string): CommandError | undefined {
    if (!this.unique) return undefined;
    const keys = this.keysOf(document);
    if (!keys) return undefined;
    for (const compound of keys.compound) {
      const owner = this.uniqueOwners.get(this.compoundKey(compound));
      if (owner !== undefined && owner !== ownKey) return this.duplicateKeyError(compound, namespace);
    }
    return undefined;
  }

  add(document: Document, documentKey: string): void {
    const keys = this.keysOf(document);
    if (!keys) return;
    for (const value of keys.leading) {
      const key = valueKey(value);
      let owners = this.equality.get(key);
      if (!owners) this.equality.set(key, (owners = new Set()));
      owners.add(documentKey);
      this.ordered.insert({ value, documentKey });
    }
    if (this.unique) for (const compound of keys.compound) this.uniqueOwners.set(this.compoundKey(compound), documentKey);
  }

  remove(document: Document, documentKey: string): void {
    const keys = this.keysOf(document);
    if (!keys) return;
    for (const value of keys.leading) {
      const key = valueKey(value);
      const owners = this.equality.get(key);
      owners?.delete(documentKey);
      if (owners?.size === 0) this.equality.delete(key);
      this.ordered.remove({ value, documentKey });
    }
    if (this.unique) {
      for (const compound of keys.compound) {
        const key = this.compoundKey(compound);
        if (this.uniqueOwners.get(key) === documentKey) this.uniqueOwners.delete(key);
      }
    }
  }

  /** Keys of documents whose leading field equals `value`, in insertion order. */
  lookupEqual(value: unknown): Iterable<string> {
    return this.equality.get(valueKey(value)) ?? [];
  }

  lookupRange(lower: RangeBound | undefined, upper: RangeBound | undefined, withinType: (value: unknown) => boolean): Iterable<string> {
    return this.ordered.range(lower, upper, withinType);
  }

  private keysOf(document: Document): IndexKeys | undefined {
    if (this.partialFilter && !this.partialFilter.test(document)) return undefined;
    const perField = this.fields.map((field) => collectPathValues(document, field));
    if (this.spec.sparse === true && perField.every((values) => values.length === 0)) return undefined;
    if (!this.multikey && this.fields.some((field) => pathCrossesArray(document, field))) this.multikey = true;
    const normalized = perField.map((values) => (values.length === 0 ? [null] : dedupe(values)));
    let compound: unknown[][] = [[]];
    for (const values of normalized) compound = compound.flatMap((prefix) => values.map((value) => [...prefix, value]));
    return { leading: normalized[0], compound };
  }

  private compoundKey(values: unknown[]): string {
    return values.length === 1 ? valueKey(values[0]) : JSON.stringify(values.map(valueKey));
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
