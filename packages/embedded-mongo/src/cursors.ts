import { Long, type Document } from 'bson';
import { CommandError, ErrorCode } from './errors';
import type { Projector } from './projection';
import { BatchWriter, type SerializedBatch } from './wire-protocol';

/** MongoDB caps a batch at 16 MiB of documents whatever the batch size. */
const MAX_BATCH_BYTES = 16 * 1024 * 1024;
const DEFAULT_FIRST_BATCH = 101;
const IDLE_TIMEOUT_MS = 10 * 60 * 1000;

interface OpenCursor {
  id: number;
  namespace: string;
  documents: Document[];
  position: number;
  project?: Projector;
  lastUsed: number;
}

export interface CursorReply {
  cursor: { firstBatch?: SerializedBatch; nextBatch?: SerializedBatch; id: Long; ns: string };
  ok: 1;
}

/**
 * Server-side cursors over already computed results. Results are references to stored documents
 * (never mutated), projected and serialised batch by batch, so a cursor costs one array of pointers.
 */
export class CursorRegistry {
  private readonly cursors = new Map<number, OpenCursor>();
  private nextId = 1 + Math.floor(Math.random() * 1_000_000);
  private readonly sweeper: NodeJS.Timeout;

  constructor() {
    this.sweeper = setInterval(() => this.closeIdle(), 60_000);
    this.sweeper.unref();
  }

  /** Answers `find`/`aggregate`/`listX` with a first batch, keeping a cursor open if more remain. */
  open(namespace: string, documents: Document[], options: { batchSize?: number; singleBatch?: boolean; project?: Projector }): CursorReply {
    const batchSize = options.batchSize ?? DEFAULT_FIRST_BATCH;
    const cursor: OpenCursor = { id: 0, namespace, documents, position: 0, project: options.project, lastUsed: Date.now() };
    const firstBatch = this.takeBatch(cursor, batchSize);
    const exhausted = cursor.position >= documents.length;
    if (!exhausted && !options.singleBatch) {
      cursor.id = this.nextId++;
      this.cursors.set(cursor.id, cursor);
    }
    return { cursor: { firstBatch, id: Long.fromNumber(cursor.id), ns: namespace }, ok: 1 };
  }

  getMore(id: number, batchSize: number | undefined): CursorReply {
    const cursor = this.cursors.get(id);
    if (!cursor) throw new CommandError(ErrorCode.CursorNotFound, `cursor id ${id} not found`);
    cursor.lastUsed = Date.now();
    const nextBatch = this.takeBatch(cursor, batchSize && batchSize > 0 ? batchSize : Number.POSITIVE_INFINITY);
    const exhausted = cursor.position >= cursor.documents.length;
    if (exhausted) this.cursors.delete(id);
    return { cursor: { nextBatch, id: Long.fromNumber(exhausted ? 0 : id), ns: cursor.namespace }, ok: 1 };
  }

  namespaceOf(id: number): string | undefined {
    return this.cursors.get(id)?.namespace;
  }

  kill(id: number): boolean {
    return this.cursors.delete(id);
  }

  closeAll(): void {
    this.cursors.clear();
    clearInterval(this.sweeper);
  }

  /** The next documents, serialised as they are taken: each document's bytes are written once, and the 16 MiB limit is measured on them. */
  private takeBatch(cursor: OpenCursor, batchSize: number): SerializedBatch {
    const batch = new BatchWriter();
    while (batch.length < batchSize && cursor.position < cursor.documents.length) {
      const stored = cursor.documents[cursor.position];
      batch.append(cursor.project ? cursor.project(stored) : stored);
      if (batch.length > 1 && batch.documentBytes > MAX_BATCH_BYTES) {
        batch.dropLast();
        break;
      }
      cursor.position += 1;
    }
    return batch.finish();
  }

  private closeIdle(): void {
    const cutoff = Date.now() - IDLE_TIMEOUT_MS;
    for (const [id, cursor] of this.cursors) if (cursor.lastUsed < cutoff) this.cursors.delete(id);
  }
}
