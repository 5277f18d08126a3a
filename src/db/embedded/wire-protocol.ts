import { deserialize, serialize, type Document } from 'bson';
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

function header(length: number, requestId: number, responseTo: number, opCode: number): Buffer {
  const buffer = Buffer.alloc(HEADER_BYTES);
  buffer.writeInt32LE(length, 0);
  buffer.writeInt32LE(requestId, 4);
  buffer.writeInt32LE(responseTo, 8);
  buffer.writeInt32LE(opCode, 12);
  return buffer;
}

/** OP_MSG reply: flags 0, one kind-0 section. */
export function encodeMsgReply(requestId: number, responseTo: number, document: Document): Buffer {
  const body = serialize(document);
  const length = HEADER_BYTES + 4 + 1 + body.length;
  const prefix = Buffer.alloc(5);
  return Buffer.concat([header(length, requestId, responseTo, OpCode.MSG), prefix, body], length);
}

/** OP_REPLY to a legacy OP_QUERY: one document, no cursor. */
export function encodeLegacyReply(requestId: number, responseTo: number, document: Document, queryFailure = false): Buffer {
  const body = serialize(document);
  const length = HEADER_BYTES + 20 + body.length;
  const fields = Buffer.alloc(20);
  fields.writeInt32LE(REPLY_AWAIT_CAPABLE | (queryFailure ? 2 : 0), 0);
  fields.writeBigInt64LE(0n, 4);
  fields.writeInt32LE(0, 12);
  fields.writeInt32LE(1, 16);
  return Buffer.concat([header(length, requestId, responseTo, OpCode.REPLY), fields, body], length);
}
