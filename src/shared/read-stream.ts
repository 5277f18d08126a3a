import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { AppError, badRequest, payloadTooLarge } from '../errors';

/**
 * Part boundaries, part headers and the closing line of a multipart upload, on top of its file and
 * fields. A Content-Length beyond file + fields + this is refused before reading a byte of the body.
 */
export const MULTIPART_OVERHEAD_BYTES = 64 * 1024;

/** The one answer to a spreadsheet over the limit, whichever way it came (REST or GraphQL). */
export function uploadTooLarge(maxBytes: number): AppError {
  return payloadTooLarge(`The spreadsheet is larger than the limit of ${maxBytes} bytes`);
}

/** A whole request body over what an upload of at most `maxFileBytes` can need. */
export function uploadBodyTooLarge(maxFileBytes: number, maxBodyBytes: number, declared?: number): AppError {
  const got = declared === undefined ? '' : ` (Content-Length ${declared})`;
  return payloadTooLarge(`The request body is larger than an upload of a spreadsheet of at most ${maxFileBytes} bytes can be: at most ${maxBodyBytes} bytes${got}`);
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
 * The request was answered before its body was read to the end (refused early, or the rest is
 * not wanted): the answer says `Connection: close` when it still can, and the socket is closed
 * once the answer is out, so a client still sending is cut off instead of being read to the end.
 */
export function closeConnectionAfterAnswer(req: IncomingMessage, res: ServerResponse): void {
  if (!res.headersSent) res.setHeader('Connection', 'close');
  if (res.writableFinished) req.socket.destroySoon();
  else res.once('finish', () => req.socket.destroySoon());
}

/**
 * The answer was decided before the body was read to its end. The rest of a body whose declared
 * length is within `maxBytes` is read and dropped, unparsed: a client still sending then reliably
 * reads the answer (a socket closed on unread data is reset, and the client may lose the answer
 * with it) and the connection can serve its next request. A longer body, or a chunked one whose
 * rest nobody announced, is not read further: see closeConnectionAfterAnswer.
 */
export function dropRestOfBody(req: IncomingMessage, res: ServerResponse, maxBytes: number): void {
  if (req.complete || req.destroyed) return;
  const declared = declaredLength(req);
  if (declared === undefined || declared > maxBytes) {
    closeConnectionAfterAnswer(req, res);
    return;
  }
  req.unpipe();
  req.resume();
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
