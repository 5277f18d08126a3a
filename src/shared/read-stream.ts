import type { Readable } from 'node:stream';
import { payloadTooLarge } from '../errors';

/** Collects a stream into one Buffer, refusing (413) as soon as it grows past `maxBytes`. */
export async function readStreamWithLimit(stream: Readable, maxBytes: number, what: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      stream.destroy();
      throw payloadTooLarge(`${what} is larger than the limit of ${maxBytes} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, size);
}
