import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { AppError, badRequest, payloadTooLarge } from '../errors';

/**
 * Part boundaries, part headers and the closing line of a multipart upload, on top of its file and
 * fields. A Content-Length beyond file + fields + this is refused before reading a byte of the body.
 */
export const MULTIPART_OVERHEAD_BYTES = 64 * 1024;

/**
 * The one answer to a spreadsheet over the limit, whichever way it came (REST or GraphQL) and
 * whatever told (a Content-Length no upload within the limit can have, or the bytes counted).
 */
export function uploadTooLarge(maxBytes: number): AppError {
  return payloadTooLarge(`The spreadsheet is larger than the limit of ${maxBytes} bytes`);
}

/** The declared Content-Length, or undefined for a chunked body (Node has already refused a malformed one). */
export function declaredLength(req: IncomingMessage): number | undefined {
  const header = req.headers['content-length'];
  return header === undefined ? undefined : Number(header);
}

/** Collects a stream into one Buffer, refusing (413) as soon as it grows past `maxBytes`. */
export async function readStreamWithLimit(stream: Readable, maxBytes: number, tooLarge: () => AppError): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  // The async iterator listens for 'error' and destroys the stream when the loop is left early.
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw tooLarge();
    chunks.push(chunk as Buffer);
  }
  // busboy ends a file cut at its `fileSize` limit normally and only flags it.
  if ((stream as { truncated?: boolean }).truncated) throw tooLarge();
  return Buffer.concat(chunks, size);
}

/**
 * Counts the bytes of a request body as they arrive and calls `onExceeded` once when they pass
 * `maxBytes`: the guard for a chunked body, whose size no header announced.
 */
export function watchBodySize(req: IncomingMessage, maxBytes: number, onExceeded: () => void): void {
  let received = 0;
  const count = (chunk: Buffer) => {
    received += chunk.length;
    if (received > maxBytes) {
      req.off('data', count);
      onExceeded();
    }
  };
  // Listening for 'data' does not change the flow: the body is already piped to its parser.
  req.on('data', count);
}

/** Why an upload's work stopped: nobody is left to read the answer. */
export function clientGone(): AppError {
  return badRequest('The client closed the connection before the answer was sent');
}

/**
 * Fires when the client goes away (the connection closes) before its answer was sent, so work done
 * only for that answer (reading, parsing) can stop. The listener lives on the response, which ends
 * with the request: nothing accumulates on a kept-alive socket.
 */
export function clientGoneSignal(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort(clientGone());
  });
  return controller.signal;
}
