import type { Document } from 'bson';
import { CommandError, ErrorCode } from './errors';

/** MongoDB's logicalSessionTimeoutMinutes: a session idle this long is gone, and its records with it. */
const SESSION_TIMEOUT_MS = 30 * 60 * 1000;
const PRUNE_INTERVAL_MS = 60 * 1000;

interface SessionRecord {
  txnNumber: number;
  /** The answer of the write, once it succeeded; undefined while it runs or after it failed as a whole. */
  reply: Document | undefined;
  running: Promise<Document> | undefined;
  lastUsed: number;
}

/**
 * Retryable writes, as a replica-set member keeps them: the outcome of the latest retryable write
 * (`insert`, `update`, `delete`, `findAndModify` with `lsid` and `txnNumber`, outside a transaction)
 * of each logical session. A driver retries a write once, with the same `txnNumber`, when the
 * reply was lost (a dropped connection, a primary stepping down); answering the retry with the
 * recorded outcome instead of running it again keeps the write applied once. An older `txnNumber`
 * than the session's latest is TransactionTooOld (225). One record per session, forgotten when
 * the session ends or after 30 idle minutes, so memory stays bounded by the sessions in use.
 */
export class RetryableWrites {
  private readonly bySession = new Map<string, SessionRecord>();
  private lastPrune = Date.now();

  /** Runs the write unless this (session, txnNumber) already ran; answers the recorded reply then. */
  async run(sessionKey: string, txnNumber: number, execute: () => Promise<Document>): Promise<Document> {
    const now = Date.now();
    this.pruneIdle(now);
    const record = this.bySession.get(sessionKey);
    if (record && record.txnNumber > txnNumber) {
      throw new CommandError(
        ErrorCode.TransactionTooOld,
        `Retryable write with txnNumber ${txnNumber} is prohibited on session because a newer retryable write with txnNumber ${record.txnNumber} has already started on this session.`,
      );
    }
    if (record && record.txnNumber === txnNumber) {
      record.lastUsed = now;
      if (record.reply) return { ...record.reply };
      // The first attempt is still running (its reply will be lost to a closed connection): the
      // retry answers what it answers rather than applying the write a second time.
      if (record.running) return { ...(await record.running) };
    }
    const current: SessionRecord = { txnNumber, reply: undefined, running: undefined, lastUsed: now };
    this.bySession.set(sessionKey, current);
    current.running = execute();
    try {
      const reply = await current.running;
      // A command refused as a whole changed nothing: a retry runs it again, as on MongoDB.
      if (reply.ok !== 0) current.reply = reply;
      return reply;
    } finally {
      current.running = undefined;
    }
  }

  /** The session's latest retryable write number, if any. */
  latestTxnNumber(sessionKey: string): number | undefined {
    return this.bySession.get(sessionKey)?.txnNumber;
  }

  forget(sessionKey: string): void {
    this.bySession.delete(sessionKey);
  }

  forgetAll(): void {
    this.bySession.clear();
  }

  get size(): number {
    return this.bySession.size;
  }

  private pruneIdle(now: number): void {
    if (now - this.lastPrune < PRUNE_INTERVAL_MS) return;
    this.lastPrune = now;
    for (const [sessionKey, record] of this.bySession) {
      if (!record.running && now - record.lastUsed > SESSION_TIMEOUT_MS) this.bySession.delete(sessionKey);
    }
  }
}
