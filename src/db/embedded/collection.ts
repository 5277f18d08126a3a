import { UUID, type Document } from 'bson';
import { valueKey } from './bson-values';
import { CommandError, ErrorCode } from './errors';
import { CollectionIndex, sameIndexKeys, type IndexKeys, type IndexSpec } from './indexes';

/** Receives the before-image of every change so an open transaction can be rolled back. */
export interface WriteJournal {
  /** Throws (WriteConflict) when the transaction may not change this document version. */
  assertCanModify(collection: Collection, documentKey: string, current: Document): void;
  recordDocumentChange(collection: Collection, documentKey: string, before: Document | undefined): void;
  recordCollectionCreated(collection: Collection): void;
}

/**
 * When each stored document version was written, on one engine-wide counter. Transactions use it
 * to detect that a document they are about to change was written by someone else after they
 * started (MongoDB's first-writer-wins WriteConflict).
 */
const writtenAt = new WeakMap<Document, number>();
let writeSequence = 0;

export function currentWriteSequence(): number {
  return writeSequence;
}

export function writeSequenceOf(document: Document): number {
  return writtenAt.get(document) ?? 0;
}

export const ID_INDEX_SPEC: IndexSpec = { v: 2, key: { _id: 1 }, name: '_id_' };

/**
 * The documents of one collection, keyed by their `_id` (as a value key), in insertion order,
 * with the indexes kept in step. Stored documents are never mutated: an update stores a new
 * object, which lets cursors, transactions' undo log and indexes hold plain references.
 */
export class Collection {
  readonly uuid = new UUID();
  readonly documents = new Map<string, Document>();
  readonly indexes = new Map<string, CollectionIndex>();

  constructor(
    readonly database: string,
    readonly name: string,
    readonly options: Document = {},
  ) {
    this.indexes.set(ID_INDEX_SPEC.name, new CollectionIndex(ID_INDEX_SPEC));
  }

  get namespace(): string {
    return `${this.database}.${this.name}`;
  }

  get size(): number {
    return this.documents.size;
  }

  static documentKey(document: Document): string {
    return valueKey(document._id);
  }

  insert(document: Document, journal?: WriteJournal): void {
    const documentKey = Collection.documentKey(document);
    const indexes = [...this.indexes.values()];
    const keys = indexes.map((index) => index.keysOf(document));
    this.assertNoConflict(indexes, keys, undefined);
    journal?.recordDocumentChange(this, documentKey, undefined);
    writtenAt.set(document, ++writeSequence);
    this.documents.set(documentKey, document);
    indexes.forEach((index, i) => index.addKeys(keys[i], documentKey));
  }

  replace(documentKey: string, next: Document, journal?: WriteJournal): void {
    const previous = this.documents.get(documentKey);
    if (!previous) throw new CommandError(ErrorCode.InternalError, `document ${documentKey} vanished during an update`);
    journal?.assertCanModify(this, documentKey, previous);
    const indexes = [...this.indexes.values()];
    const nextKeys = indexes.map((index) => index.keysOf(next));
    this.assertNoConflict(indexes, nextKeys, documentKey);
    journal?.recordDocumentChange(this, documentKey, previous);
    writtenAt.set(next, ++writeSequence);
    indexes.forEach((index, i) => {
      const previousKeys = index.keysOf(previous);
      if (sameIndexKeys(previousKeys, nextKeys[i])) return;
      index.removeKeys(previousKeys, documentKey);
      index.addKeys(nextKeys[i], documentKey);
    });
    this.documents.set(documentKey, next);
  }

  delete(documentKey: string, journal?: WriteJournal): void {
    const previous = this.documents.get(documentKey);
    if (!previous) return;
    journal?.assertCanModify(this, documentKey, previous);
    journal?.recordDocumentChange(this, documentKey, previous);
    for (const index of this.indexes.values()) index.remove(previous, documentKey);
    this.documents.delete(documentKey);
  }

  /** Puts back a before-image during a rollback; no uniqueness checks, the image was valid. */
  restore(documentKey: string, before: Document | undefined): void {
    const current = this.documents.get(documentKey);
    if (current) {
      for (const index of this.indexes.values()) index.remove(current, documentKey);
      this.documents.delete(documentKey);
    }
    if (before) {
      // Restored versions count as new writes: anyone who read the rolled-back version must conflict.
      writtenAt.set(before, ++writeSequence);
      this.documents.set(documentKey, before);
      for (const index of this.indexes.values()) index.add(before, documentKey);
    }
  }

  /** Builds an index over the existing documents; fails like MongoDB when a unique build meets duplicates. */
  createIndex(spec: IndexSpec): void {
    const index = new CollectionIndex(spec);
    for (const [documentKey, document] of this.documents) {
      const keys = index.keysOf(document);
      const conflict = index.conflictFor(keys, documentKey, this.namespace);
      if (conflict) {
        throw new CommandError(
          ErrorCode.DuplicateKey,
          `Index build failed: ${new UUID().toHexString()}: Collection ${this.namespace} ( ${this.uuid.toHexString()} ) :: caused by :: ${conflict.message}`,
          { details: conflict.details },
        );
      }
      index.addKeys(keys, documentKey);
    }
    this.indexes.set(spec.name, index);
  }

  dropIndex(name: string): void {
    this.indexes.delete(name);
  }

  private assertNoConflict(indexes: CollectionIndex[], keys: Array<IndexKeys | undefined>, ownKey: string | undefined): void {
    indexes.forEach((index, i) => {
      const conflict = index.conflictFor(keys[i], ownKey, this.namespace);
      if (conflict) throw conflict;
    });
  }
}
