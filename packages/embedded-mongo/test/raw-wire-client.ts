import net from 'node:net';
import { deserialize, serialize, type Document } from 'bson';

/** A bare TCP client speaking just enough of the wire protocol to send hand-made (or broken) frames. */
export class RawWireClient {
  private buffered = Buffer.alloc(0);
  private waiting: Array<(frame: Buffer) => void> = [];
  private nextRequestId = 1;
  closed = false;

  private constructor(private readonly socket: net.Socket) {
    socket.on('data', (chunk) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      while (this.buffered.length >= 4 && this.buffered.length >= this.buffered.readInt32LE(0)) {
        const length = this.buffered.readInt32LE(0);
        const frame = this.buffered.subarray(0, length);
        this.buffered = this.buffered.subarray(length);
        this.waiting.shift()?.(frame);
      }
    });
    socket.on('close', () => (this.closed = true));
  }

  static connect(uri: string): Promise<RawWireClient> {
    const { hostname, port } = new URL(uri);
    return new Promise((resolve, reject) => {
      const socket = net.connect(Number(port), hostname, () => resolve(new RawWireClient(socket)));
      socket.once('error', reject);
    });
  }

  /** Sends raw bytes as they are. */
  sendBytes(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  /** An OP_MSG frame with one body section. */
  msgFrame(body: Document, flags = 0): { frame: Buffer; requestId: number } {
    const requestId = this.nextRequestId++;
    const bson = Buffer.from(serialize(body));
    const frame = Buffer.alloc(16 + 4 + 1 + bson.length);
    frame.writeInt32LE(frame.length, 0);
    frame.writeInt32LE(requestId, 4);
    frame.writeInt32LE(0, 8);
    frame.writeInt32LE(2013, 12);
    frame.writeUInt32LE(flags, 16);
    frame.writeUInt8(0, 20);
    bson.copy(frame, 21);
    return { frame, requestId };
  }

  /** A legacy OP_QUERY frame against `<db>.$cmd`. */
  queryFrame(namespace: string, query: Document): { frame: Buffer; requestId: number } {
    const requestId = this.nextRequestId++;
    const name = Buffer.from(`${namespace}\0`, 'utf8');
    const bson = Buffer.from(serialize(query));
    const frame = Buffer.alloc(16 + 4 + name.length + 8 + bson.length);
    frame.writeInt32LE(frame.length, 0);
    frame.writeInt32LE(requestId, 4);
    frame.writeInt32LE(0, 8);
    frame.writeInt32LE(2004, 12);
    frame.writeInt32LE(0, 16);
    name.copy(frame, 20);
    frame.writeInt32LE(0, 20 + name.length);
    frame.writeInt32LE(-1, 24 + name.length);
    bson.copy(frame, 28 + name.length);
    return { frame, requestId };
  }

  nextFrame(timeoutMs = 2000): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no reply frame')), timeoutMs);
      this.waiting.push((frame) => {
        clearTimeout(timer);
        resolve(frame);
      });
    });
  }

  /** Sends a command as OP_MSG and decodes the reply body. */
  async command(body: Document): Promise<{ responseTo: number; requestId: number; reply: Document }> {
    const { frame, requestId } = this.msgFrame(body);
    const replyFrame = this.nextFrame();
    this.sendBytes(frame);
    const received = await replyFrame;
    return { requestId, responseTo: received.readInt32LE(8), reply: decodeMsgBody(received) };
  }

  close(): void {
    this.socket.destroy();
  }
}

export function decodeMsgBody(frame: Buffer): Document {
  if (frame.readInt32LE(12) !== 2013) throw new Error(`expected OP_MSG, got opcode ${frame.readInt32LE(12)}`);
  return deserialize(frame.subarray(21));
}

export function decodeReplyDocument(frame: Buffer): Document {
  if (frame.readInt32LE(12) !== 1) throw new Error(`expected OP_REPLY, got opcode ${frame.readInt32LE(12)}`);
  return deserialize(frame.subarray(36));
}
