import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { asAppError, payloadTooLarge } from '../errors';
import { declaredLength } from '../shared/read-stream';
import { uploadTooLarge, type ReceivedFile } from '../shared/received-file';

/**
 * The one multipart/form-data reader of the service: the REST upload route (the `paxlist` form,
 * rest-facade/upload.routes.ts) and the GraphQL multipart request (operations, map, files:
 * src/graphql/multipart-request.ts) both read their bodies with it, on busboy. It holds the limits
 * and their answers in one place: a Content-Length no form within the limits can have is 413
 * before a byte is read; a chunked body is counted as it arrives; a file one byte over its limit
 * stops the reading at once (413); a body that is malformed or ends early is unreadable; a client
 * that goes away stops it. Files are handed over whole, as bytes.
 */

/**
 * Part boundaries, part headers and the closing line of a multipart body, on top of its files and
 * fields (and of a few skipped file parts). A body beyond files + fields + this is refused.
 */
export const MULTIPART_OVERHEAD_BYTES = 64 * 1024;

/** File parts a form may carry beyond those it is read for: skipped unread. One more is 413. */
const SKIPPED_FILES = 4;

/** Header lines one part may have (Content-Disposition, Content-Type and a few more). */
const PART_HEADER_PAIRS = 20;

/** The limits of one kind of form. Together they bound the body as a whole (maxMultipartBytes). */
export interface MultipartLimits {
  /** The largest file taken: a file of exactly this many bytes is read, one byte more is 413. */
  fileBytes: number;
  /** Files read; a few more file parts are skipped, beyond that the form is refused (413). */
  files: number;
  /** Text fields read; later ones are ignored. */
  fields: number;
  /** The longest text field; a longer one reaches the receiver cut, flagged `truncated`. */
  fieldBytes: number;
}

/** What a transport does with the parts of a form as they arrive, in order. Throwing refuses the form. */
export interface MultipartReceiver {
  /** A text field; `truncated` when it was longer than fieldBytes (the value is then cut). */
  field(name: string, value: string, truncated: boolean): void;
  /** Whether the file part `name` is wanted; one that is not is skipped. */
  wantsFile(name: string): boolean;
  /** A wanted file, received in full. */
  file(name: string, file: ReceivedFile): void;
}

export interface MultipartReading {
  limits: MultipartLimits;
  /** The request's client-gone signal (clientGoneSignal): the reading stops when it fires; files carry it. */
  signal: AbortSignal;
  receiver: MultipartReceiver;
}

/** A body the parser cannot read (malformed, cut short, no boundary), in busboy's words; each transport words its answer. */
export class UnreadableMultipart extends Error {
  override name = 'UnreadableMultipart';
}

/** The largest body a form within `limits` can have. */
export function maxMultipartBytes(limits: MultipartLimits): number {
  return limits.files * limits.fileBytes + limits.fields * limits.fieldBytes + MULTIPART_OVERHEAD_BYTES;
}

/**
 * Reads the multipart body of `req`, handing its parts to the receiver. Resolves once the body was
 * read to its end and every wanted file handed over. Rejects with the first failure: an AppError
 * (413 for a body or file over its limit or too many files, the signal's reason when the client
 * went away, whatever the receiver threw) or an UnreadableMultipart. A refused body is not read
 * further (its rest lingers: src/http/lingering-close.ts), and neither is one whose answer was sent
 * before it ended (the receiver refused it, or the GraphQL operation did not wait for its file).
 */
export function readMultipart(req: IncomingMessage, res: ServerResponse, reading: MultipartReading): Promise<void> {
  const { limits } = reading;
  const declared = declaredLength(req);
  if (declared !== undefined && declared > maxMultipartBytes(limits)) return Promise.reject(uploadTooLarge(limits.fileBytes));
  let form: busboy.Busboy;
  try {
    form = busboy({
      headers: req.headers,
      defParamCharset: 'utf8',
      limits: {
        // busboy reports `limit` when a file reaches fileSize: one byte more lets a file of exactly the limit through.
        fileSize: limits.fileBytes + 1,
        files: limits.files + SKIPPED_FILES,
        fields: limits.fields,
        fieldSize: limits.fieldBytes,
        parts: limits.files + SKIPPED_FILES + limits.fields,
        headerPairs: PART_HEADER_PAIRS,
      },
    });
  } catch (error) {
    return Promise.reject(new UnreadableMultipart((error as Error).message));
  }
  return new Promise((resolve, reject) => new FormReading(req, form, reading, { resolve, reject }).start(res));
}

/** One reading under way: every stream with its error handled, settled once. */
class FormReading {
  private settled = false;
  private formClosed = false;
  private filesPending = 0;
  private bodyBytes = 0;

  constructor(
    private readonly req: IncomingMessage,
    private readonly form: busboy.Busboy,
    private readonly reading: MultipartReading,
    private readonly outcome: { resolve(): void; reject(error: unknown): void },
  ) {}

  start(res: ServerResponse): void {
    const { form, reading } = this;
    form.on('field', (name, value, info) => this.hand(() => reading.receiver.field(name, value, info.valueTruncated)));
    form.on('file', (name, stream, info) => this.receiveFile(name, stream, info));
    // busboy can emit 'error' twice (a malformed part header, then the end of the form when it is
    // destroyed), and an 'error' with no listener ends the process: listened to for good.
    form.on('error', (error) => this.fail(error));
    form.once('filesLimit', () => this.fail(payloadTooLarge(`A multipart body may carry at most ${reading.limits.files + SKIPPED_FILES} files`)));
    form.once('close', () => {
      this.formClosed = true;
      this.finishIfDone();
    });
    if (reading.signal.aborted) {
      this.fail(reading.signal.reason);
      return;
    }
    reading.signal.addEventListener('abort', () => this.fail(reading.signal.reason), { once: true });
    // An answer sent before the body ended needs nothing more from it.
    res.once('close', () => this.fail(new UnreadableMultipart('The answer was sent before the body was read')));
    // A chunked body announces no length: counted as it comes (listening does not change the flow: the body is piped).
    this.req.on('data', this.countBody);
    this.req.pipe(form);
  }

  private readonly countBody = (chunk: Buffer): void => {
    this.bodyBytes += chunk.length;
    if (this.bodyBytes > maxMultipartBytes(this.reading.limits)) this.fail(uploadTooLarge(this.reading.limits.fileBytes));
  };

  private receiveFile(name: string, stream: Readable, info: busboy.FileInfo): void {
    if (this.settled || !this.hand(() => this.reading.receiver.wantsFile(name))) {
      stream.on('error', () => undefined);
      stream.resume();
      return;
    }
    const { fileBytes } = this.reading.limits;
    // Over the limit: the reading of the request stops now, not at the end of the part.
    stream.once('limit', () => this.fail(uploadTooLarge(fileBytes)));
    this.filesPending += 1;
    collect(stream, fileBytes).then(
      (bytes) => {
        this.filesPending -= 1;
        if (this.settled) return;
        const file: ReceivedFile = { bytes, filename: info.filename ?? '', mimetype: info.mimeType, signal: this.reading.signal };
        this.hand(() => this.reading.receiver.file(name, file));
        this.finishIfDone();
      },
      (error: unknown) => this.fail(error),
    );
  }

  /** Runs a receiver's step; what it throws refuses the form. */
  private hand<T>(step: () => T): T | undefined {
    if (this.settled) return undefined;
    try {
      return step();
    } catch (error) {
      this.fail(error);
      return undefined;
    }
  }

  private finishIfDone(): void {
    if (this.settled || !this.formClosed || this.filesPending > 0) return;
    this.stopReading();
    this.outcome.resolve();
  }

  private fail(error: unknown): void {
    if (this.settled) return;
    this.stopReading();
    // Not from inside busboy's own event: it is still walking the chunk that raised it.
    process.nextTick(() => this.form.destroy());
    this.outcome.reject(asAppError(error) ?? (error instanceof UnreadableMultipart ? error : new UnreadableMultipart((error as Error).message ?? String(error))));
  }

  private stopReading(): void {
    this.settled = true;
    this.req.off('data', this.countBody);
    this.req.unpipe(this.form);
  }
}

/** A file part's bytes, refused (413) as soon as they pass `maxBytes`. */
async function collect(stream: Readable, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  // The async iterator listens for 'error' and destroys the stream when the loop is left early.
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw uploadTooLarge(maxBytes);
    chunks.push(chunk as Buffer);
  }
  // busboy ends a file cut at its `fileSize` limit normally and only flags it.
  if ((stream as { truncated?: boolean }).truncated) throw uploadTooLarge(maxBytes);
  return Buffer.concat(chunks, size);
}
