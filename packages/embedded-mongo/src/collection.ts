import { UUID, type Document } from 'bson';
import { valueKey } from './bson-values';
import { CommandError, ErrorCode } from './errors';
import { CollectionIndex, sameIndexKeys, type IndexKeys, type IndexSpec } from './indexes';
import { BlockedByTransaction, type WriteBlocker } from './write-waits';

/**
 * The open transaction a write belongs to. Inside a transaction, commands reach collections
 * through the transaction's own view (transactions.ts), which keeps the writes (and the
 * collections it creates) private until commit; without one, writes apply at once.
 */
export interface WriteJournal {
  readonly txnNumber: number;
}

/** An open transaction that has written a document (see `Collection.pendingWriters`). */
export interface PendingWriter extends WriteBlocker {
  /** A write outside any transaction changed the document anyway: the transaction must abort (WriteConflict). */
  abortForConflict(): void;
  /** The transaction's uncommitted version of a document of `collection` (null: deleted), if it wrote one. */
  writtenVersion(collection: Collection, documentKey: string): Document | null | undefined;
}

/** A committed version of a document replaced (or deleted) while a transaction's snapshot was open. */
export interface ReplacedVersion {
  /** The version that was replaced; undefined when the write inserted the document. */
  before: Document | undefined;
  /** The write sequence of the replacing write: snapshots taken before it still see `before`. */
  replacedAt: number;
}

/**
 * When each stored document version was written, on one engine-wide counter. Transactions use it
 * to detect that a document they are about to change was written by someone else after they
 * started (MongoDB's first-writer-wins WriteConflict).
 */
const writtenAt = new WeakMap<Document, number>();
let writeSequence = 0;

export function writeSequenceOf(document: Document): number {
  return writtenAt.get(document) ?? 0;
}

/**
 * Open transaction snapshots. While any is open, every committed write keeps the version it
 * replaced (`Collection.history`), so a transaction reads documents as of its start; with none
 * open, nothing is kept and writes cost what they did without transactions.
 */
let openSnapshots = 0;
/** Open snapshots (write sequence at their start) → how many; engine-wide, as the counter is. */
const openSnapshotStarts = new Map<number, number>();
const collectionsWithHistory = new Set<Collection>();

/** Opens a snapshot of the committed data as it is now; returns its write sequence. */
export function openSnapshot(): number {
  openSnapshotStarts.set(writeSequence, (openSnapshotStarts.get(writeSequence) ?? 0) + 1);
  openSnapshots += 1;
  return writeSequence;
}

/** Closes a snapshot; versions only closed snapshots could see are forgotten. */
export function closeSnapshot(snapshot: number): void {
  const count = openSnapshotStarts.get(snapshot);
  if (count === undefined) return;
  if (count > 1) openSnapshotStarts.set(snapshot, count - 1);
  else openSnapshotStarts.delete(snapshot);
  openSnapshots -= 1;
  const oldest = Math.min(...openSnapshotStarts.keys());
  for (const collection of collectionsWithHistory) {
    if (openSnapshots === 0) collection.history = undefined;
    else collection.pruneHistory(oldest);
    if (!collection.history) collectionsWithHistory.delete(collection);
  }
}

export const ID_INDEX_SPEC: IndexSpec = { v: 2, key: { _id: 1 }, name: '_id_' };

/**
 * The documents of one collection, keyed by their `_id` (as a value key), in insertion order,
 * with the indexes kept in step. Stored documents are never mutated: an update stores a new
 * object, which lets cursors, transactions' write sets and snapshots and indexes hold plain references.
 */
export class Collection {
  readonly uuid = new UUID();
  readonly documents = new Map<string, Document>();
  readonly indexes = new Map<string, CollectionIndex>();
  /** Versions replaced while a transaction snapshot was open, oldest first, by document key. */
  history: Map<string, ReplacedVersion[]> | undefined;
  /** Documents an open transaction has written but not committed, with that transaction. */
  pendingWriters: Map<string, PendingWriter> | undefined;

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

  /**
   * The open transaction a write outside transactions must wait for before writing the document
   * `documentKey` (or storing `next` under it, whose unique keys may be held too), if any.
   */
  blockerFor(documentKey: string, next?: Document): PendingWriter | undefined {
    const pending = this.pendingWriters;
    if (pending === undefined) return undefined;
    const holder = pending.get(documentKey);
    if (holder !== undefined || next === undefined) return holder;
    for (const index of this.indexes.values()) {
      if (!index.unique) continue;
      const keys = index.keysOf(next);
      if (!keys) continue;
      for (const [pendingKey, writer] of pending) {
        const version = pendingKey === documentKey ? undefined : writer.writtenVersion(this, pendingKey);
        if (!version) continue;
        const probe = new CollectionIndex(index.spec);
        probe.add(version, pendingKey);
        if (probe.conflictFor(keys, documentKey, this.namespace)) return writer;
      }
    }
    return undefined;
  }

  /** Throws BlockedByTransaction when a write outside transactions must first wait (see `blockerFor`). */
  assertNotBlocked(documentKey: string, next?: Document): void {
    const blocker = this.blockerFor(documentKey, next);
    if (blocker) throw new BlockedByTransaction(blocker);
  }

  insert(document: Document, _journal?: WriteJournal): void {
    const documentKey = Collection.documentKey(document);
    if (this.pendingWriters !== undefined) this.pendingWriters.get(documentKey)?.abortForConflict();
    const indexes = [...this.indexes.values()];
    const keys = indexes.map((index) => index.keysOf(document));
    this.assertNoConflict(indexes, keys, undefined);
    writtenAt.set(document, ++writeSequence);
    if (openSnapshots > 0) this.remember(documentKey, undefined);
    this.documents.set(documentKey, document);
    indexes.forEach((index, i) => index.addKeys(keys[i], documentKey));
  }

  replace(documentKey: string, next: Document, _journal?: WriteJournal): void {
    const previous = this.documents.get(documentKey);
    if (!previous) throw new CommandError(ErrorCode.InternalError, `document ${documentKey} vanished during an update`);
    if (this.pendingWriters !== undefined) this.pendingWriters.get(documentKey)?.abortForConflict();
    const indexes = [...this.indexes.values()];
    const nextKeys = indexes.map((index) => index.keysOf(next));
    this.assertNoConflict(indexes, nextKeys, documentKey);
    writtenAt.set(next, ++writeSequence);
    if (openSnapshots > 0) this.remember(documentKey, previous);
    indexes.forEach((index, i) => {
      const previousKeys = index.keysOf(previous);
      if (sameIndexKeys(previousKeys, nextKeys[i])) return;
      index.removeKeys(previousKeys, documentKey);
      index.addKeys(nextKeys[i], documentKey);
    });
    this.documents.set(documentKey, next);
  }

  delete(documentKey: string, _journal?: WriteJournal): void {
    const previous = this.documents.get(documentKey);
    if (!previous) return;
    if (this.pendingWriters !== undefined) this.pendingWriters.get(documentKey)?.abortForConflict();
    if (openSnapshots > 0) {
      ++writeSequence;
      this.remember(documentKey, previous);
    }
    for (const index of this.indexes.values()) index.remove(previous, documentKey);
    this.documents.delete(documentKey);
  }

  /** Keeps the version a committed write replaces, for snapshots opened before that write. */
  private remember(documentKey: string, before: Document | undefined): void {
    if (!this.history) {
      this.history = new Map();
      collectionsWithHistory.add(this);
    }
    const versions = this.history.get(documentKey);
    const entry = { before, replacedAt: writeSequence };
    if (versions) versions.push(entry);
    else this.history.set(documentKey, [entry]);
  }

  /** Forgets versions no open snapshot can see any more (replaced at or before the oldest snapshot). */
  pruneHistory(oldestSnapshot: number): void {
    if (!this.history) return;
    for (const [documentKey, versions] of this.history) {
      const kept = versions.filter((version) => version.replacedAt > oldestSnapshot);
      if (kept.length === 0) this.history.delete(documentKey);
      else if (kept.length !== versions.length) this.history.set(documentKey, kept);
    }
    if (this.history.size === 0) this.history = undefined;
  }

  /** The document as a snapshot taken at `snapshot` sees it (undefined: absent then). */
  versionAt(documentKey: string, snapshot: number): Document | undefined {
    const versions = this.history?.get(documentKey);
    if (versions) for (const version of versions) if (version.replacedAt > snapshot) return version.before;
    return this.documents.get(documentKey);
  }

  /** Whether a committed write changed (inserted, replaced or deleted) the document after `snapshot`. */
  changedSince(documentKey: string, snapshot: number): boolean {
    const versions = this.history?.get(documentKey);
    if (versions && versions[versions.length - 1].replacedAt > snapshot) return true;
    const current = this.documents.get(documentKey);
    return current !== undefined && writeSequenceOf(current) > snapshot;
  }

  /**
   * The duplicate-key error `document` would cause in a unique index, counting the committed
   * documents except `ownKey` and those `overridden` (a transaction's own writes replace them),
   * plus `extra` documents (a transaction's own uncommitted writes).
   */
  uniqueConflict(
    index: CollectionIndex,
    document: Document,
    ownKey: string,
    overridden: ReadonlyMap<string, unknown> | undefined,
    extra: Iterable<[string, Document | null]>,
  ): CommandError | undefined {
    if (!index.unique) return undefined;
    const keys = index.keysOf(document);
    if (!keys) return undefined;
    const probe = new CollectionIndex(index.spec);
    for (const value of keys.leading) {
      for (const owner of index.lookupEqual(value)) {
        if (owner === ownKey || overridden?.has(owner)) continue;
        const committed = this.documents.get(owner);
        if (committed) probe.add(committed, owner);
      }
    }
    for (const [owner, written] of extra) if (written && owner !== ownKey) probe.add(written, owner);
    return probe.conflictFor(keys, ownKey, this.namespace);
  }

  /**
   * Applies a committed transaction's writes (document key → new version, or null for a delete)
   * in one step. Call `uniqueConflictOnCommit` first: this does not check uniqueness.
   */
  applyCommitted(writes: ReadonlyMap<string, Document | null>): void {
    const indexes = [...this.indexes.values()];
    for (const [documentKey, next] of writes) {
      const previous = this.documents.get(documentKey);
      if ((previous ?? null) === next) continue;
      ++writeSequence;
      if (openSnapshots > 0) this.remember(documentKey, previous);
      if (previous) for (const index of indexes) index.remove(previous, documentKey);
      if (next) writtenAt.set(next, writeSequence);
    }
    for (const [documentKey, next] of writes) {
      const previous = this.documents.get(documentKey);
      if ((previous ?? null) === next) continue;
      if (next) {
        for (const index of indexes) index.add(next, documentKey);
        this.documents.set(documentKey, next);
      } else this.documents.delete(documentKey);
    }
  }

  /** The duplicate key a transaction's writes would now cause against committed documents, if any. */
  uniqueConflictOnCommit(writes: ReadonlyMap<string, Document | null>): CommandError | undefined {
    for (const index of this.indexes.values()) {
      if (!index.unique) continue;
      for (const [documentKey, next] of writes) {
        if (!next) continue;
        const conflict = this.uniqueConflict(index, next, documentKey, writes, writes);
        if (conflict) return conflict;
      }
    }
    return undefined;
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
