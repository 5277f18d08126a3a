import type { Document } from 'bson';
import { currentWriteSequence, writeSequenceOf, type Collection, type WriteJournal } from './collection';
import { CommandError, ErrorCode } from './errors';
import type { Storage } from './storage';

/**
 * Multi-document transactions with one writer at a time.
 *
 * A transaction takes its database's write lock at its first write there and keeps it until
 * commit or abort; every change it makes is applied to the live data at once and its before-image is kept
 * in an undo log, which abort replays backwards. A second transaction that wants to write waits a
 * short while for the lock, then fails with WriteConflict (112) labelled
 * TransientTransactionError, which makes the driver's `withTransaction` retry it. As in MongoDB
 * (first writer wins), a transaction that changes a document someone else wrote after the
 * transaction started also fails with that retryable WriteConflict, so read-modify-write
 * transactions do not lose updates.
 *
 * Isolation this does NOT give (unlike MongoDB's snapshot isolation):
 * - Reads outside the transaction, and reads of other transactions, see its uncommitted writes
 *   (read uncommitted), and may see them disappear if it aborts.
 * - Reads inside a transaction see other sessions' committed or non-transactional writes made
 *   after it started (no snapshot): repeatable reads are not guaranteed. Only documents the
 *   transaction then writes are checked for conflicts (as in MongoDB, write skew is possible).
 * - Writes outside any transaction are never blocked by the lock. If such a write changes a
 *   document the open transaction also changed and the transaction then aborts, the abort puts
 *   back the transaction's before-image and that outside write is lost.
 * - A transaction that has not written yet holds no lock, so two transactions can both read and
 *   decide; only their writes are serialised.
 */

const transientLabel = { errorLabels: ['TransientTransactionError'] };

const LOCK_WAIT_MS = 500;

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

export class Transaction implements WriteJournal {
  state: TransactionState = 'active';
  private readonly changes: Array<{ collection: Collection; documentKey: string; before: Document | undefined }> = [];
  private readonly recorded = new Set<string>();
  private readonly createdCollections: Collection[] = [];
  timer: NodeJS.Timeout | undefined;
  /** Databases whose write lock this transaction holds. */
  readonly lockedDatabases = new Set<string>();
  /** Writes numbered above this happened after the transaction started. */
  private readonly startedAfter = currentWriteSequence();

  constructor(
    readonly sessionKey: string,
    readonly txnNumber: number,
  ) {}

  assertCanModify(collection: Collection, documentKey: string, current: Document): void {
    if (this.recorded.has(this.recordKey(collection, documentKey))) return;
    if (writeSequenceOf(current) > this.startedAfter) throw writeConflict();
  }

  recordDocumentChange(collection: Collection, documentKey: string, before: Document | undefined): void {
    const recordKey = this.recordKey(collection, documentKey);
    if (this.recorded.has(recordKey)) return;
    this.recorded.add(recordKey);
    this.changes.push({ collection, documentKey, before });
  }

  recordCollectionCreated(collection: Collection): void {
    this.createdCollections.push(collection);
  }

  private recordKey(collection: Collection, documentKey: string): string {
    return `${collection.uuid.toHexString()}|${documentKey}`;
  }

  rollback(storage: Storage): void {
    for (let i = this.changes.length - 1; i >= 0; i -= 1) {
      const { collection, documentKey, before } = this.changes[i];
      collection.restore(documentKey, before);
    }
    for (const collection of this.createdCollections.reverse()) {
      if (collection.size === 0) storage.dropCollection(collection.database, collection.name, collection);
    }
    this.changes.length = 0;
  }
}


export class TransactionManager {
  /** The latest transaction of each logical session. */
  private readonly bySession = new Map<string, Transaction>();
  /** Write lock per database: transactions in different databases (e.g. parallel test files) never wait for each other. */
  private readonly lockHolders = new Map<string, Transaction>();
  private waiters: Array<() => void> = [];

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
      const transaction = new Transaction(sessionKey, txnNumber);
      transaction.timer = setTimeout(() => {
        if (transaction.state === 'active') this.finish(transaction, 'aborted');
      }, TRANSACTION_LIFETIME_MS);
      transaction.timer.unref();
      this.bySession.set(sessionKey, transaction);
      return transaction;
    }
    return this.existing(sessionKey, txnNumber, 'continue');
  }

  /** Takes the database's write lock for the transaction, waiting briefly; fails with a retryable WriteConflict. */
  async acquireWriteLock(transaction: Transaction, database: string): Promise<void> {
    const deadline = Date.now() + LOCK_WAIT_MS;
    const heldByOther = () => {
      const holder = this.lockHolders.get(database);
      return holder !== undefined && holder !== transaction;
    };
    while (heldByOther() && transaction.state === 'active') {
      const remaining = deadline - Date.now();
      if (remaining <= 0) break;
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timeout);
          resolve();
        };
        const timeout = setTimeout(() => {
          this.waiters = this.waiters.filter((waiter) => waiter !== wake);
          resolve();
        }, remaining);
        this.waiters.push(wake);
      });
    }
    if (transaction.state !== 'active') {
      throw new CommandError(ErrorCode.NoSuchTransaction, `Transaction with { txnNumber: ${transaction.txnNumber} } has been aborted.`, transientLabel);
    }
    if (heldByOther()) {
      this.finish(transaction, 'aborted');
      throw writeConflict();
    }
    this.lockHolders.set(database, transaction);
    transaction.lockedDatabases.add(database);
  }

  commit(sessionKey: string, txnNumber: number): void {
    const transaction = this.existing(sessionKey, txnNumber, 'commit');
    if (transaction.state === 'active') this.finish(transaction, 'committed');
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
      throw new CommandError(ErrorCode.NoSuchTransaction, `Transaction with { txnNumber: ${txnNumber} } has been aborted.`, transientLabel);
    }
    if (transaction.state === 'committed' && purpose !== 'commit') {
      throw new CommandError(ErrorCode.TransactionCommitted, `Transaction with { txnNumber: ${txnNumber} } has been committed.`);
    }
    return transaction;
  }

  private finish(transaction: Transaction, outcome: 'committed' | 'aborted'): void {
    if (outcome === 'aborted') transaction.rollback(this.storage);
    transaction.state = outcome;
    clearTimeout(transaction.timer);
    let released = false;
    for (const database of transaction.lockedDatabases) {
      if (this.lockHolders.get(database) === transaction) {
        this.lockHolders.delete(database);
        released = true;
      }
    }
    if (released) {
      const waiters = this.waiters;
      this.waiters = [];
      for (const wake of waiters) wake();
    }
  }
}
