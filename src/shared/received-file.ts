import { payloadTooLarge, type AppError } from '../errors';

/**
 * A file as a transport hands it to a service: every byte of it, received in full and within the
 * limit, what the client said of it, and the signal that fires when that client goes away (work
 * done only for its answer stops). The REST route and the GraphQL multipart request both read it
 * with src/http/multipart.ts; no transport's types reach the services.
 */
export interface ReceivedFile {
  bytes: Buffer;
  /** The name the client gave the part (may be empty). */
  filename: string;
  /** The part's declared Content-Type (only a claim: the bytes decide). */
  mimetype: string;
  /** Fires when the client went away before its answer; its reason is the error to stop with. */
  signal: AbortSignal;
}

/**
 * The one answer to a spreadsheet over the limit, whichever way it came (REST or GraphQL) and
 * whatever told (a Content-Length no upload within the limit can have, or the bytes counted).
 */
export function uploadTooLarge(maxBytes: number): AppError {
  return payloadTooLarge(`The spreadsheet is larger than the limit of ${maxBytes} bytes`);
}
