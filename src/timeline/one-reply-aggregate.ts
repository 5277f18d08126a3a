import { deserialize } from 'bson';
import { MongoNetworkError, MongoServerError, type Document } from 'mongodb';
import type { Model, PipelineStage } from 'mongoose';

/**
 * Runs an aggregate whose documents fit in one reply (MongoDB caps a reply at 16 MiB) as one
 * `aggregate` command, and hands each document to `map` as it is decoded, so no document outlives
 * its mapping. The driver's cursor decodes a batch document by document through an on-demand index
 * of each one's elements (several times slower than a plain deserialisation of each: figures in
 * docs/performance.md, "Figures behind the code"), and keeps every decoded document alive until the whole list is
 * mapped, while a young-generation collection copies them. Everything a timeline needs fits one
 * reply: 16 MiB is about 90,000 flights, whose JSON would be far over RESPONSE_MAX_BYTES.
 *
 * What the driver's cursor gave and a command does not is kept here: the server's time limit
 * (`maxTimeMs`), one retry after an error the driver would retry a read on, and, for a result
 * larger than one reply, the cursor itself: the reply's cursor is closed and the same aggregate
 * runs again through mongoose, whose cursor continues across batches.
 */
export async function mapAggregateInOneReply<Stored, Read, Mapped>(
  model: Model<Stored>,
  pipeline: PipelineStage[],
  maxTimeMs: number,
  map: (document: Read) => Mapped,
  reader: DocumentReader<Read> = DECODED,
): Promise<Mapped[]> {
  const db = model.db.db;
  const mapDecoded = (documents: Document[]) => documents.map((document) => map(reader.fromDocument(document)));
  if (!db) return mapDecoded(await model.aggregate<Document>(pipeline).option({ maxTimeMS: maxTimeMs }).exec());
  const collection = model.collection.collectionName;
  const command = { aggregate: collection, pipeline, cursor: { batchSize: ONE_REPLY_BATCH_SIZE }, maxTimeMS: maxTimeMs };
  // The batch's documents stay BSON (views of the reply) until each is decoded below.
  const options = { fieldsAsRaw: { firstBatch: true } };
  let reply: Document;
  try {
    reply = await db.command(command, options);
  } catch (error) {
    if (!isRetryableRead(error)) throw error;
    reply = await db.command(command, options);
  }
  const cursor = reply.cursor as { id: unknown; firstBatch: Uint8Array[] };
  if (!isExhausted(cursor.id)) {
    // More than one reply holds: let the driver's cursor read them all (the closing is best effort:
    // an abandoned cursor times out on the server).
    db.command({ killCursors: collection, cursors: [cursor.id] }).catch(() => undefined);
    return mapDecoded(await model.aggregate<Document>(pipeline).option({ maxTimeMS: maxTimeMs, batchSize: ONE_REPLY_BATCH_SIZE }).exec());
  }
  const batch = cursor.firstBatch;
  const mapped = new Array<Mapped>(batch.length);
  for (let i = 0; i < batch.length; i += 1) {
    mapped[i] = map(reader.fromBytes(batch[i]));
    batch[i] = DONE;
  }
  return mapped;
}

/**
 * How the documents of a result become what `map` reads: from a reply's BSON (one document's bytes),
 * or, for a result the driver's cursor read, from the document it decoded. A reader of a known shape
 * may be far cheaper than `deserialize` (src/timeline/timeline-flight-reader.ts).
 */
export interface DocumentReader<Read> {
  fromBytes(bytes: Uint8Array): Read;
  fromDocument(document: Document): Read;
}

/** The documents as `deserialize` and the cursor give them. */
const DECODED: DocumentReader<never> = {
  fromBytes: (bytes) => deserialize(bytes) as never,
  fromDocument: (document) => document as never,
};

/** Documents asked for in the first batch: more than any reply holds, so the server's 16 MiB decides. */
const ONE_REPLY_BATCH_SIZE = 1_000_000;

/** Put in place of each view once decoded, so the views die young as well. */
const DONE = new Uint8Array(0);

function isExhausted(id: unknown): boolean {
  return id === 0 || id === 0n || (typeof id === 'object' && id !== null && String(id) === '0');
}

/** MongoDB's retryable-reads rule (what the driver retries a cursor's first command on): a network error or a failover code. */
const RETRYABLE_READ_CODES = new Set([6, 7, 89, 91, 189, 9001, 10107, 11600, 11602, 13435, 13436, 262, 134]);

function isRetryableRead(error: unknown): boolean {
  if (error instanceof MongoNetworkError) return true;
  return error instanceof MongoServerError && typeof error.code === 'number' && RETRYABLE_READ_CODES.has(error.code);
}
