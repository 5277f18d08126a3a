import { calculateObjectSize, deserialize, serialize, serializeWithBufferAndIndex, type Document } from 'bson';
import { retypeCommand } from './numeric-types';

/** MongoDB wire protocol opcodes the engine speaks. */
export const OpCode = { REPLY: 1, QUERY: 2004, COMPRESSED: 2012, MSG: 2013 } as const;

const HEADER_BYTES = 16;
const MSG_CHECKSUM_PRESENT = 1 << 0;
const MSG_MORE_TO_COME = 1 << 1;
const REPLY_AWAIT_CAPABLE = 1 << 3;

/** Numbers arrive as `Int32`/`Double`/`Long`, so `retypeCommand` can keep each one's BSON type (numeric-types.ts). */
const DESERIALIZE_OPTIONS = { promoteLongs: false, promoteValues: false, promoteBuffers: false, bsonRegExp: false } as const;

export interface MessageHeader {
  messageLength: number;
  requestId: number;
  responseTo: number;
  opCode: number;
}

export type Request =
  | { kind: 'query'; header: MessageHeader; namespace: string; command: Document }
  | { kind: 'msg'; header: MessageHeader; command: Document; moreToCome: boolean }
  | { kind: 'unsupported'; header: MessageHeader };

export class ProtocolError extends Error {
  override readonly name = 'ProtocolError';
}

export function readHeader(frame: Buffer): MessageHeader {
  return {
    messageLength: frame.readInt32LE(0),
    requestId: frame.readInt32LE(4),
    responseTo: frame.readInt32LE(8),
    opCode: frame.readInt32LE(12),
  };
}

function readCString(frame: Buffer, offset: number, end: number): { value: string; next: number } {
  const terminator = frame.indexOf(0, offset);
  if (terminator < 0 || terminator >= end) throw new ProtocolError('unterminated cstring');
  return { value: frame.toString('utf8', offset, terminator), next: terminator + 1 };
}

function readDocument(frame: Buffer, offset: number, end: number): { document: Document; next: number } {
  if (offset + 5 > end) throw new ProtocolError('truncated document');
  const size = frame.readInt32LE(offset);
  if (size < 5 || offset + size > end) throw new ProtocolError('invalid document size');
  const document = deserialize(frame.subarray(offset, offset + size), DESERIALIZE_OPTIONS);
  return { document, next: offset + size };
}

/** Decodes one complete frame (header included). Throws ProtocolError when it is malformed. */
export function decodeRequest(frame: Buffer): Request {
  const header = readHeader(frame);
  const end = frame.length;
  if (header.opCode === OpCode.MSG) return decodeMsg(frame, header, end);
  if (header.opCode === OpCode.QUERY) {
    let offset = HEADER_BYTES + 4;
    const namespace = readCString(frame, offset, end);
    offset = namespace.next + 8;
    const { document } = readDocument(frame, offset, end);
    // Legacy clients may wrap the command as {$query: {...}, $readPreference: ...}.
    const command = document.$query && typeof document.$query === 'object' ? (document.$query as Document) : document;
    return { kind: 'query', header, namespace: namespace.value, command: retypeCommand(command) };
  }
  return { kind: 'unsupported', header };
}

function decodeMsg(frame: Buffer, header: MessageHeader, frameEnd: number): Request {
  const flags = frame.readUInt32LE(HEADER_BYTES);
  const end = flags & MSG_CHECKSUM_PRESENT ? frameEnd - 4 : frameEnd;
  let offset = HEADER_BYTES + 4;
  let body: Document | undefined;
  const sequences: Array<{ identifier: string; documents: Document[] }> = [];
  while (offset < end) {
    const kind = frame.readUInt8(offset);
    offset += 1;
    if (kind === 0) {
      const read = readDocument(frame, offset, end);
      body = read.document;
      offset = read.next;
    } else if (kind === 1) {
      const size = frame.readInt32LE(offset);
      const sectionEnd = offset + size;
      if (size < 5 || sectionEnd > end) throw new ProtocolError('invalid document sequence size');
      const identifier = readCString(frame, offset + 4, sectionEnd);
      const documents: Document[] = [];
      let cursor = identifier.next;
      while (cursor < sectionEnd) {
        const read = readDocument(frame, cursor, sectionEnd);
        documents.push(read.document);
        cursor = read.next;
      }
      sequences.push({ identifier: identifier.value, documents });
      offset = sectionEnd;
    } else {
      throw new ProtocolError(`unknown OP_MSG section kind ${kind}`);
    }
  }
  if (!body) throw new ProtocolError('OP_MSG without a body section');
  for (const { identifier, documents } of sequences) {
    const existing = body[identifier];
    body[identifier] = Array.isArray(existing) ? [...existing, ...documents] : documents;
  }
  return { kind: 'msg', header, command: retypeCommand(body), moreToCome: (flags & MSG_MORE_TO_COME) !== 0 };
}

/**
 * A cursor batch already in BSON: the elements of the batch array (`0x03`, the index as a key,
 * the document), without the array's length prefix and terminator. Cursors serialise each
 * document once, as they take it into a batch, measuring the 16 MiB batch limit on the bytes
 * written, instead of sizing every document first and serialising the whole reply afterwards.
 */
export class SerializedBatch {
  constructor(
    /** Documents in the batch. */
    readonly length: number,
    readonly elements: Buffer,
  ) {}
}

/** Scratch space batches are serialised into, grown to the largest batch met and reused (commands run one at a time). */
let scratch = Buffer.allocUnsafeSlow(1024 * 1024);

/** Writes documents into a batch one at a time; the last one can be taken back (it went over the batch limit). */
export class BatchWriter {
  private count = 0;
  private offset = 0;
  private lastStart = 0;
  private lastDocumentBytes = 0;
  /** Bytes of the documents written, keys and element types excluded (what MongoDB's batch limit counts). */
  documentBytes = 0;

  get length(): number {
    return this.count;
  }

  append(document: Document): void {
    this.lastStart = this.offset;
    let at = this.writeKey(this.offset);
    for (;;) {
      try {
        const end = serializeWithBufferAndIndex(document, scratch, { index: at }) + 1;
        this.lastDocumentBytes = end - at;
        at = end;
        break;
      } catch (error) {
        // Too small for this document: the copy out of bson's own buffer failed. Grow and write it again.
        if (!(error instanceof RangeError)) throw error;
        const needed = at + calculateObjectSize(document);
        if (needed <= scratch.length) throw error;
        this.grow(needed);
        at = this.writeKey(this.lastStart);
      }
    }
    this.offset = at;
    this.documentBytes += this.lastDocumentBytes;
    this.count += 1;
  }

  dropLast(): void {
    this.offset = this.lastStart;
    this.documentBytes -= this.lastDocumentBytes;
    this.count -= 1;
  }

  /** The batch, copied out of the scratch space (the reply is encoded later, after other commands may have run). */
  finish(): SerializedBatch {
    const elements = Buffer.allocUnsafe(this.offset);
    scratch.copy(elements, 0, 0, this.offset);
    return new SerializedBatch(this.count, elements);
  }

  /** Writes the element type and the array index key; returns where the document starts. */
  private writeKey(at: number): number {
    // The index in decimal ASCII, written digit by digit (no string, no call out of JavaScript).
    let digits = 1;
    for (let power = 10; power <= this.count; power *= 10) digits += 1;
    if (at + digits + 2 > scratch.length) this.grow(at + digits + 2);
    scratch[at] = 0x03;
    for (let rest = this.count, i = digits; i > 0; i -= 1, rest = Math.floor(rest / 10)) scratch[at + i] = 0x30 + (rest % 10);
    scratch[at + digits + 1] = 0;
    return at + digits + 2;
  }

  private grow(needed: number): void {
    const grown = Buffer.allocUnsafeSlow(Math.max(needed, scratch.length * 2));
    scratch.copy(grown, 0, 0, this.offset);
    scratch = grown;
  }
}

/** A command reply as BSON; a cursor's SerializedBatch is written as it is, around the rest of the reply. */
function serializeReply(reply: Document): { length: number; writeInto(target: Buffer, offset: number): void } {
  const cursor: unknown = reply.cursor;
  const batchField = isCursorWithBatch(cursor) ? (cursor.firstBatch instanceof SerializedBatch ? 'firstBatch' : 'nextBatch') : undefined;
  if (!batchField) {
    const bytes = serialize(reply);
    return { length: bytes.length, writeInto: (target, offset) => target.set(bytes, offset) };
  }
  const { [batchField]: batch, ...cursorRest } = cursor as Document & Record<typeof batchField, SerializedBatch>;
  const { cursor: _cursor, ...replyRest } = reply;
  // The other fields as serialised documents, whose elements are copied between a new length and terminator.
  const cursorFields = serialize(cursorRest);
  const replyFields = serialize(replyRest);
  const arrayLength = 4 + batch.elements.length + 1;
  const cursorLength = 4 + (1 + batchField.length + 1 + arrayLength) + (cursorFields.length - 5) + 1;
  const length = 4 + (1 + 'cursor'.length + 1 + cursorLength) + (replyFields.length - 5) + 1;
  return {
    length,
    writeInto(target, offset) {
      let at = offset;
      at = target.writeInt32LE(length, at);
      at = writeElementHeader(target, at, 0x03, 'cursor');
      at = target.writeInt32LE(cursorLength, at);
      at = writeElementHeader(target, at, 0x04, batchField);
      at = target.writeInt32LE(arrayLength, at);
      at += batch.elements.copy(target, at);
      target[at++] = 0;
      target.set(cursorFields.subarray(4, cursorFields.length - 1), at);
      at += cursorFields.length - 5;
      target[at++] = 0;
      target.set(replyFields.subarray(4, replyFields.length - 1), at);
      at += replyFields.length - 5;
      target[at] = 0;
    },
  };
}

function isCursorWithBatch(cursor: unknown): cursor is Document {
  return cursor !== null && typeof cursor === 'object' && ((cursor as Document).firstBatch instanceof SerializedBatch || (cursor as Document).nextBatch instanceof SerializedBatch);
}

function writeElementHeader(target: Buffer, at: number, type: number, name: string): number {
  target[at] = type;
  const written = target.write(name, at + 1, 'utf8');
  target[at + 1 + written] = 0;
  return at + written + 2;
}

function writeHeader(frame: Buffer, length: number, requestId: number, responseTo: number, opCode: number): void {
  frame.writeInt32LE(length, 0);
  frame.writeInt32LE(requestId, 4);
  frame.writeInt32LE(responseTo, 8);
  frame.writeInt32LE(opCode, 12);
}

/** OP_MSG reply: flags 0, one kind-0 section; the frame is allocated once and the body written into it. */
export function encodeMsgReply(requestId: number, responseTo: number, document: Document): Buffer {
  const body = serializeReply(document);
  const length = HEADER_BYTES + 4 + 1 + body.length;
  const frame = Buffer.allocUnsafe(length);
  writeHeader(frame, length, requestId, responseTo, OpCode.MSG);
  frame.writeUInt32LE(0, HEADER_BYTES);
  frame[HEADER_BYTES + 4] = 0;
  body.writeInto(frame, HEADER_BYTES + 5);
  return frame;
}

/** OP_REPLY to a legacy OP_QUERY: one document, no cursor. */
export function encodeLegacyReply(requestId: number, responseTo: number, document: Document, queryFailure = false): Buffer {
  const body = serializeReply(document);
  const length = HEADER_BYTES + 20 + body.length;
  const frame = Buffer.allocUnsafe(length);
  writeHeader(frame, length, requestId, responseTo, OpCode.REPLY);
  frame.writeInt32LE(REPLY_AWAIT_CAPABLE | (queryFailure ? 2 : 0), HEADER_BYTES);
  frame.writeBigInt64LE(0n, HEADER_BYTES + 4);
  frame.writeInt32LE(0, HEADER_BYTES + 12);
  frame.writeInt32LE(1, HEADER_BYTES + 16);
  body.writeInto(frame, HEADER_BYTES + 20);
  return frame;
}
