import { UUID, type Document } from 'bson';
import { Collection, closeSnapshot, openSnapshot, type PendingWriter, type WriteJournal } from './collection';
import { CommandError, ErrorCode } from './errors';
import { CollectionIndex } from './indexes';
import { Storage } from './storage';

/**
 * Multi-document transactions with snapshot isolation and per-document write conflicts, as
 * MongoDB gives them.
 *
 * - **Private writes.** A transaction's writes go to its own write set (per collection: document
 *   key → new version, or null for a delete) and never touch the committed data until commit,
 *   which applies them all in one synchronous step (atomic to every reader). Abort drops them.
 *   Reads outside the transaction see committed data only.
 * - **Snapshot reads.** A transaction reads the committed data as of its start, overlaid with its
 *   own writes. While any transaction is open, every committed write keeps the version it
 *   replaced (`Collection.history`), pruned as the oldest open transaction ends.
 * - **First writer wins.** A transaction that writes a document another open transaction has
 *   written, or one committed by someone else after it started, fails at once with WriteConflict
 *   (112) labelled TransientTransactionError (and is aborted), which `withTransaction` retries.
 *   The same holds for a unique index key another open transaction has written.
 * - **Writes outside transactions wait.** A write outside any transaction that meets a document
 *   (or a unique key, or a new collection) an open transaction has written waits until that
 *   transaction ends, then applies to the data as it is then, as in MongoDB (write-waits.ts).
 *   Paths that cannot wait (the TTL monitor, renames) abort the open transaction instead: its next
 *   statement fails with WriteConflict and its commit with NoSuchTransaction, both retryable.
 * - **Private catalog.** Collections a transaction creates (implicitly or with `create`), and
 *   their indexes, are seen by it alone until commit (Storage reservations); an abort forgets
 *   them. New indexes on collections that existed before are refused, as MongoDB 7.0 does.
 */

const transientLabel = { errorLabels: ['TransientTransactionError'] };

function writeConflict(): CommandError {
  return new CommandError(
    ErrorCode.WriteConflict,
    'Caused by :: Write conflict during plan execution and yielding is disabled. :: Please retry your operation or multi-document transaction.',
    transientLabel,
  );
}
/** MongoDB's default transactionLifetimeLimitSeconds. */
const TRANSACTION_LIFETIME_MS = 60_000;

type TransactionState = 'active' | 'committed' | 'aborted';

/** Document key → the transaction's version of it (null: deleted by the transaction). */
type WriteSet = Map<string, Document | null>;

export class Transaction implements WriteJournal, PendingWriter {
  state: TransactionState = 'active';
  /** Set when an outside write to a document this transaction wrote aborted it. */
  abortedByConflict = false;
  /** Committed writes numbered above this happened after the transaction started: it does not see them. */
  readonly snapshot = openSnapshot();
  readonly writes = new Map<Collection, WriteSet>();
  timer: NodeJS.Timeout | undefined;
  /** Settles when the transaction commits or aborts: writes outside transactions wait for it. */
  readonly ended: Promise<void>;
  private markEnded!: () => void;
  /** The storage commands of this transaction see: committed data as of its start plus its own writes. */
  readonly storage: TransactionStorage;
  private readonly views = new Map<Collection, TransactionCollection>();

  constructor(
    readonly sessionKey: string,
    readonly txnNumber: number,
    liveStorage: Storage,
    private readonly onConflict: (transaction: Transaction) => void,
  ) {
    this.storage = new TransactionStorage(liveStorage, this);
    this.ended = new Promise<void>((resolve) => (this.markEnded = resolve));
  }

  /** Called once, as the transaction commits or aborts. */
  settle(): void {
    this.markEnded();
  }

  writtenVersion(collection: Collection, documentKey: string): Document | null | undefined {
    return this.writes.get(collection)?.get(documentKey);
  }

  viewOf(collection: Collection): TransactionCollection {
    let view = this.views.get(collection);
    if (!view) this.views.set(collection, (view = new TransactionCollection(collection, this)));
    return view;
  }

  abortForConflict(): void {
    this.onConflict(this);
  }

  /** Checks that the transaction may write the document (first writer wins), else throws WriteConflict. */
  claim(collection: Collection, documentKey: string): void {
    if (this.writes.get(collection)?.has(documentKey)) return;
    const holder = collection.pendingWriters?.get(documentKey);
    if (holder !== undefined && holder !== this) throw writeConflict();
    if (collection.changedSince(documentKey, this.snapshot)) throw writeConflict();
  }

  /** Records the transaction's new version of a document (null: deleted). */
  write(collection: Collection, documentKey: string, next: Document | null): void {
    let writes = this.writes.get(collection);
    if (!writes) this.writes.set(collection, (writes = new Map()));
    writes.set(documentKey, next);
    (collection.pendingWriters ??= new Map()).set(documentKey, this);
  }

  /** Forgets the write set and hands the documents back to other writers. */
  release(): void {
    for (const [collection, writes] of this.writes) {
      const pending = collection.pendingWriters;
      if (!pending) continue;
      for (const documentKey of writes.keys()) if (pending.get(documentKey) === this) pending.delete(documentKey);
      if (pending.size === 0) collection.pendingWriters = undefined;
    }
    this.writes.clear();
    this.views.clear();
  }

  /** The error the commit would meet (a unique key taken by a write committed meanwhile), if any. */
  commitConflict(): CommandError | undefined {
    for (const [collection, writes] of this.writes) {
      if (collection.uniqueConflictOnCommit(writes)) return writeConflict();
    }
    return undefined;
  }

  applyWrites(): void {
    for (const [collection, writes] of this.writes) collection.applyCommitted(writes);
  }
}

/**
 * The documents a transaction sees in one collection: the committed version as of its snapshot,
 * or its own write. A Map (the type commands and the planner use) that stores nothing itself.
 */
class SnapshotDocuments extends Map<string, Document> {
  constructor(
    private readonly base: Collection,
    private readonly transaction: Transaction,
  ) {
    super();
  }

  override get(documentKey: string): Document | undefined {
    const writes = this.transaction.writes.get(this.base);
    if (writes?.has(documentKey)) return writes.get(documentKey) ?? undefined;
    return this.base.versionAt(documentKey, this.transaction.snapshot);
  }

  override has(documentKey: string): boolean {
    return this.get(documentKey) !== undefined;
  }

  override get size(): number {
    let count = 0;
    for (const _ of this.entries()) count += 1;
    return count;
  }

  override *entries(): MapIterator<[string, Document]> {
    const { base, transaction } = this;
    const writes = transaction.writes.get(base);
    const history = base.history;
    if (!writes && !history) {
      yield* base.documents.entries();
      return;
    }
    for (const [documentKey, committed] of base.documents) {
      if (writes?.has(documentKey)) {
        const own = writes.get(documentKey);
        if (own) yield [documentKey, own];
        continue;
      }
      const visible = history?.has(documentKey) ? base.versionAt(documentKey, transaction.snapshot) : committed;
      if (visible) yield [documentKey, visible];
    }
    // Documents deleted since the snapshot, then the transaction's own inserts.
    if (history) {
      for (const documentKey of history.keys()) {
        if (base.documents.has(documentKey) || writes?.has(documentKey)) continue;
        const visible = base.versionAt(documentKey, transaction.snapshot);
        if (visible) yield [documentKey, visible];
      }
    }
    if (writes) for (const [documentKey, own] of writes) if (own && !base.documents.has(documentKey)) yield [documentKey, own];
  }

  override *values(): MapIterator<Document> {
    for (const [, document] of this.entries()) yield document;
  }

  override *keys(): MapIterator<string> {
    for (const [documentKey] of this.entries()) yield documentKey;
  }

  override [Symbol.iterator](): MapIterator<[string, Document]> {
    return this.entries();
  }

  override forEach(callback: (value: Document, key: string, map: Map<string, Document>) => void, thisArg?: unknown): void {
    for (const [documentKey, document] of this.entries()) callback.call(thisArg, document, documentKey, this);
  }
}

/**
 * An index of the committed collection as a transaction's planner sees it: lookups answer the
 * committed keys plus every document the transaction wrote or that changed since a snapshot, a
 * superset the planner's full filter then narrows (on the transaction's versions).
 */
function snapshotIndex(index: CollectionIndex, base: Collection, transaction: Transaction): CollectionIndex {
  const withChanged = (keys: Iterable<string>): Iterable<string> => {
    const writes = transaction.writes.get(base);
    if (!writes && !base.history) return keys;
    const all = new Set(keys);
    for (const documentKey of writes?.keys() ?? []) all.add(documentKey);
    for (const documentKey of base.history?.keys() ?? []) all.add(documentKey);
    return all;
  };
  return new Proxy(index, {
    get(target, property) {
      if (property === 'lookupEqual') return (value: unknown) => withChanged(target.lookupEqual(value));
      if (property === 'lookupRange') {
        return (...range: Parameters<CollectionIndex['lookupRange']>) => withChanged(target.lookupRange(...range));
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** A committed collection as one transaction sees and changes it. */
export class TransactionCollection extends Collection {
  private readonly indexViews = new WeakMap<CollectionIndex, CollectionIndex>();

  constructor(
    readonly base: Collection,
    private readonly transaction: Transaction,
  ) {
    super(base.database, base.name, base.options);
    const self = this as unknown as { uuid: UUID; documents: Map<string, Document> };
    self.uuid = base.uuid;
    self.documents = new SnapshotDocuments(base, transaction);
    Object.defineProperty(this, 'indexes', { get: () => this.indexView() });
  }

  private indexView(): Map<string, CollectionIndex> {
    const view = new Map<string, CollectionIndex>();
    for (const [name, index] of this.base.indexes) {
      let wrapped = this.indexViews.get(index);
      if (!wrapped) this.indexViews.set(index, (wrapped = snapshotIndex(index, this.base, this.transaction)));
      view.set(name, wrapped);
    }
    return view;
  }

  override insert(document: Document): void {
    const documentKey = Collection.documentKey(document);
    this.transaction.claim(this.base, documentKey);
    if (this.documents.get(documentKey) !== undefined) {
      throw this.base.uniqueConflict(this.base.indexes.get('_id_')!, document, '', undefined, [[documentKey, document]])!;
    }
    this.assertUnique(document, documentKey);
    this.transaction.write(this.base, documentKey, document);
  }

  override replace(documentKey: string, next: Document): void {
    if (this.documents.get(documentKey) === undefined) {
      throw new CommandError(ErrorCode.InternalError, `document ${documentKey} vanished during an update`);
    }
    this.transaction.claim(this.base, documentKey);
    this.assertUnique(next, documentKey);
    this.transaction.write(this.base, documentKey, next);
  }

  override delete(documentKey: string): void {
    if (this.documents.get(documentKey) === undefined) return;
    this.transaction.claim(this.base, documentKey);
    this.transaction.write(this.base, documentKey, null);
  }

  /** MongoDB builds indexes in a transaction only on collections it created (those are not views). */
  override createIndex(): void {
    throw new CommandError(ErrorCode.OperationNotSupportedInTransaction, `Cannot create new indexes on existing collection ${this.namespace} in a multi-document transaction.`);
  }

  override dropIndex(): void {
    throw new CommandError(ErrorCode.OperationNotSupportedInTransaction, `Cannot run 'dropIndexes' in a multi-document transaction.`);
  }

  /**
   * Unique keys: a duplicate among the committed documents (less those this transaction
   * rewrote) or its own writes is DuplicateKey; one among another open transaction's writes is
   * a WriteConflict (that transaction wrote the key first).
   */
  private assertUnique(document: Document, documentKey: string): void {
    const own = this.transaction.writes.get(this.base);
    for (const index of this.base.indexes.values()) {
      if (!index.unique) continue;
      const duplicate = this.base.uniqueConflict(index, document, documentKey, own, own ?? []);
      if (duplicate) throw duplicate;
    }
    const pending = this.base.pendingWriters;
    if (!pending) return;
    const others = new Map<PendingWriter, Array<[string, Document | null]>>();
    for (const [pendingKey, writer] of pending) {
      if (writer === this.transaction || !(writer instanceof Transaction)) continue;
      const written = writer.writes.get(this.base)?.get(pendingKey) ?? null;
      let list = others.get(writer);
      if (!list) others.set(writer, (list = []));
      list.push([pendingKey, written]);
    }
    for (const written of others.values()) {
      for (const index of this.base.indexes.values()) {
        if (!index.unique) continue;
        const keys = index.keysOf(document);
        if (!keys) continue;
        const probe = new CollectionIndex(index.spec);
        for (const [pendingKey, version] of written) if (version && pendingKey !== documentKey) probe.add(version, pendingKey);
        if (probe.conflictFor(keys, documentKey, this.namespace)) throw writeConflict();
      }
    }
  }
}

/**
 * The engine's storage as one transaction sees it: committed collections through the
 * transaction's view, plus the collections it created itself (written directly: no one else sees them).
 */
class TransactionStorage extends Storage {
  constructor(
    private readonly live: Storage,
    private readonly transaction: Transaction,
  ) {
    super();
  }

  override getCollection(database: string, name: string): Collection | undefined {
    const own = this.live.reservedCollection(database, name, this.transaction);
    if (own) return own;
    const collection = this.live.getCollection(database, name);
    return collection && this.transaction.viewOf(collection);
  }

  override ensureCollection(database: string, name: string): Collection {
    return this.getCollection(database, name) ?? this.createCollection(database, name, {});
  }

  override createCollection(database: string, name: string, options: Document): Collection {
    return this.live.reserveCollection(database, name, options, this.transaction, writeConflict);
  }

  override dropCollection(database: string, name: string, only?: Collection): boolean {
    return this.live.dropCollection(database, name, only instanceof TransactionCollection ? only.base : only);
  }

  override renameCollection(database: string, from: string, toDatabase: string, to: string): void {
    this.live.renameCollection(database, from, toDatabase, to);
  }

  override dropDatabase(database: string): boolean {
    return this.live.dropDatabase(database);
  }

  override listCollections(database: string): Collection[] {
    return this.live.listCollections(database).map((collection) => this.transaction.viewOf(collection));
  }

  override reservedCollection(database: string, name: string, owner: PendingWriter): Collection | undefined {
    return this.live.reservedCollection(database, name, owner);
  }

  override listDatabases(): string[] {
    return this.live.listDatabases();
  }
}

export class TransactionManager {
  /** The latest transaction of each logical session. */
  private readonly bySession = new Map<string, Transaction>();
  private readonly active = new Set<Transaction>();

  constructor(private readonly storage: Storage) {}

  /** The transaction a command with `autocommit: false` belongs to, starting it when asked. */
  resolve(sessionKey: string, txnNumber: number, startTransaction: boolean): Transaction {
    const latest = this.bySession.get(sessionKey);
    if (startTransaction) {
      if (latest && latest.txnNumber > txnNumber) {
        throw new CommandError(225, `Cannot start transaction ${txnNumber} on session because a newer transaction ${latest.txnNumber} has already started`);
      }
      if (latest && latest.txnNumber === txnNumber) {
        throw new CommandError(ErrorCode.NoSuchTransaction, `Transaction ${txnNumber} has already been started`, transientLabel);
      }
      if (latest?.state === 'active') this.finish(latest, 'aborted');
      const transaction = new Transaction(sessionKey, txnNumber, this.storage, (conflicted) => {
        if (conflicted.state !== 'active') return;
        conflicted.abortedByConflict = true;
        this.finish(conflicted, 'aborted');
      });
      transaction.timer = setTimeout(() => {
        if (transaction.state === 'active') this.finish(transaction, 'aborted');
      }, TRANSACTION_LIFETIME_MS);
      transaction.timer.unref();
      this.bySession.set(sessionKey, transaction);
      this.active.add(transaction);
      return transaction;
    }
    return this.existing(sessionKey, txnNumber, 'continue');
  }

  /** Applies the transaction's writes atomically; a unique key taken meanwhile aborts it (WriteConflict). */
  commit(sessionKey: string, txnNumber: number): void {
    const transaction = this.existing(sessionKey, txnNumber, 'commit');
    if (transaction.state !== 'active') return;
    const conflict = transaction.commitConflict();
    if (conflict) {
      this.finish(transaction, 'aborted');
      throw conflict;
    }
    this.storage.publishReserved(transaction);
    transaction.applyWrites();
    this.finish(transaction, 'committed');
  }

  abort(sessionKey: string, txnNumber: number): void {
    const transaction = this.existing(sessionKey, txnNumber, 'abort');
    this.finish(transaction, 'aborted');
  }

  /** Aborts the transaction after a failed statement, as MongoDB does. */
  abortAfterError(transaction: Transaction): void {
    if (transaction.state === 'active') this.finish(transaction, 'aborted');
  }

  endSession(sessionKey: string): void {
    const transaction = this.bySession.get(sessionKey);
    if (transaction?.state === 'active') this.finish(transaction, 'aborted');
    this.bySession.delete(sessionKey);
  }

  endAllSessions(): void {
    for (const sessionKey of [...this.bySession.keys()]) this.endSession(sessionKey);
  }

  private existing(sessionKey: string, txnNumber: number, purpose: 'continue' | 'commit' | 'abort'): Transaction {
    const transaction = this.bySession.get(sessionKey);
    if (!transaction || transaction.txnNumber !== txnNumber) {
      throw new CommandError(
        ErrorCode.NoSuchTransaction,
        `Given transaction number ${txnNumber} does not match any in-progress transactions.${transaction ? ` The active transaction number is ${transaction.txnNumber}` : ''}`,
        transientLabel,
      );
    }
    if (transaction.state === 'aborted') {
      if (transaction.abortedByConflict && purpose === 'continue') throw writeConflict();
      throw new CommandError(ErrorCode.NoSuchTransaction, `Transaction with { txnNumber: ${txnNumber} } has been aborted.`, transientLabel);
    }
    if (transaction.state === 'committed' && purpose !== 'commit') {
      throw new CommandError(ErrorCode.TransactionCommitted, `Transaction with { txnNumber: ${txnNumber} } has been committed.`);
    }
    return transaction;
  }

  private finish(transaction: Transaction, outcome: 'committed' | 'aborted'): void {
    if (outcome === 'aborted') this.storage.releaseReserved(transaction);
    transaction.release();
    transaction.state = outcome;
    clearTimeout(transaction.timer);
    if (this.active.delete(transaction)) closeSnapshot(transaction.snapshot);
    transaction.settle();
  }
}
